import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * Refuses a `modelDir` that cannot be a Hugging Face model folder before `serve` opens anything: the folder also feeds
 * export provenance, without token-faithful mode. With the mode on, the gateway's start checks the rest (the tokenizer
 * and chat template load and render: TT_MODEL_DIR_INVALID, gateway/token-faithful/load-model-dir.ts).
 *
 * @example assertModelDir(config.modelDir); // throws UsageError('--model-dir /models/qwen: no such folder')
 */
export function assertModelDir(modelDir: string): void {
  let stats;
  try {
    stats = statSync(modelDir, { throwIfNoEntry: false });
  } catch (error) {
    throw new UsageError(`--model-dir ${modelDir}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {
      cause: error,
    });
  }
  if (stats === undefined) throw new UsageError(`--model-dir ${modelDir}: no such folder`);
  if (!stats.isDirectory()) throw new UsageError(`--model-dir ${modelDir}: not a folder (give the model's folder, not a file in it)`);
  if (!existsSync(join(modelDir, 'tokenizer.json'))) {
    throw new UsageError(
      `--model-dir ${modelDir}: no tokenizer.json (give a Hugging Face model folder, with tokenizer.json and tokenizer_config.json)`,
    );
  }
}
