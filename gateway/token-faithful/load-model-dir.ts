import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { loadHfTokenizer, type HfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';

/** What token-faithful mode renders prompts with: the folder's tokenizer and its default chat template. */
export interface LoadedModelDir {
  tokenizer: HfTokenizer;
  template: string;
}

const FOLDER_HINT = 'give a Hugging Face model folder, with tokenizer.json and tokenizer_config.json';

/**
 * Loads a Hugging Face model folder for rendering: `tokenizer.json` and `tokenizer_config.json` (the tokenizer,
 * loaded once per folder for the process), and the chat template from `chat_template.jinja` when the folder has one
 * (newer transformers write it there), else from `tokenizer_config.json`. Whatever is missing or cannot be read is a
 * TokentapError TT_MODEL_DIR_INVALID whose message names the folder and what is wrong. `templateRequired: false` (a
 * family with its own renderer) lets a folder without a template through.
 *
 * @example const { tokenizer, template } = await loadModelDir(qwen3TokenizerDir());
 */
export async function loadModelDir(modelDir: string, options: { templateRequired?: boolean } = {}): Promise<LoadedModelDir> {
  await expectFolder(modelDir);
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) {
    const file = await stat(path.join(modelDir, name)).catch(() => undefined);
    if (file === undefined || !file.isFile()) throw modelDirError(modelDir, `no ${name} (${FOLDER_HINT})`);
  }
  let tokenizer: HfTokenizer;
  try {
    tokenizer = await loadHfTokenizer(modelDir);
  } catch (error) {
    // JSON errors name their file (load-hf-tokenizer.ts); anything else is the tokenizer library refusing tokenizer.json
    const what = error instanceof SyntaxError ? error.message : `tokenizer.json is no tokenizer this gateway can load (${(error as Error).message})`;
    throw modelDirError(modelDir, what, error);
  }
  const template = await readTemplateFile(modelDir);
  if (template !== null) return { tokenizer, template };
  if (tokenizer.chatTemplate !== null) return { tokenizer, template: tokenizer.chatTemplate };
  // a family that renders its own prompts (gpt-oss) needs no template
  if (options.templateRequired === false) return { tokenizer, template: '' };
  throw modelDirError(
    modelDir,
    'no chat template (neither chat_template.jinja nor a chat_template in tokenizer_config.json): give the folder of the model the backend serves, or leave --model-dir out to render with the backend',
  );
}

/**
 * The error for a model folder token-faithful mode cannot render with.
 *
 * @example throw modelDirError('/models/qwen', 'no chat template') // --model-dir /models/qwen: no chat template
 */
export function modelDirError(modelDir: string, what: string, cause?: unknown): TokentapError {
  return new TokentapError('TT_MODEL_DIR_INVALID', { message: `--model-dir ${modelDir}: ${what}`, cause, details: { modelDir } });
}

async function expectFolder(modelDir: string): Promise<void> {
  let stats;
  try {
    stats = await stat(modelDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw modelDirError(modelDir, code === 'ENOENT' ? 'no such folder' : `cannot be read (${code ?? (error as Error).message})`, error);
  }
  if (!stats.isDirectory()) throw modelDirError(modelDir, "not a folder (give the model's folder, not a file in it)");
}

/** `chat_template.jinja`, or null when the folder has none. */
async function readTemplateFile(modelDir: string): Promise<string | null> {
  try {
    return await readFile(path.join(modelDir, 'chat_template.jinja'), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw modelDirError(modelDir, `chat_template.jinja cannot be read (${code ?? (error as Error).message})`, error);
  }
}
