import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TokentapError } from '../core/errors/tokentap-error.js';

/** Bumped when a format's columns change meaning; written into every file's metadata. */
export const EXPORT_SCHEMA_VERSION = '1';

/** Where a dataset came from, as Parquet key-value metadata (and the `provenance` of the summary). */
export interface ExportProvenance {
  schema_version: string;
  tokentap_version: string;
  /** sha256 of the model folder's tokenizer.json, or `unknown` when no `--model-dir` was given */
  tokenizer_hash: string;
  /** sha256 of the chat template (tokenizer_config.json `chat_template`, or chat_template.jinja), or `unknown` */
  chat_template_hash: string;
}

/**
 * Hashes of the tokenizer and chat template a dataset was made with, so a trainer can refuse a dataset built for
 * another model (the token ids mean nothing under another vocabulary). tokentap records ids, not the backend's
 * tokenizer: the caller names the model folder it served.
 *
 * @example
 * const provenance = readExportProvenance({ modelDir: '/models/Qwen3-8B' });
 * provenance.tokenizer_hash // 'sha256:9c1…'
 */
export function readExportProvenance(options: { modelDir?: string }): ExportProvenance {
  const provenance: ExportProvenance = {
    schema_version: EXPORT_SCHEMA_VERSION,
    tokentap_version: tokentapVersion(),
    tokenizer_hash: 'unknown',
    chat_template_hash: 'unknown',
  };
  if (options.modelDir === undefined) return provenance;
  const tokenizerFile = join(options.modelDir, 'tokenizer.json');
  if (!existsSync(tokenizerFile)) throw new TokentapError('EXPORT_NO_TOKENIZER', { message: `no tokenizer.json in ${options.modelDir}` });
  provenance.tokenizer_hash = sha256(readFileSync(tokenizerFile));
  const template = readChatTemplate(options.modelDir);
  if (template !== null) provenance.chat_template_hash = sha256(Buffer.from(template, 'utf8'));
  return provenance;
}

function readChatTemplate(modelDir: string): string | null {
  const jinja = join(modelDir, 'chat_template.jinja');
  if (existsSync(jinja)) return readFileSync(jinja, 'utf8');
  const configFile = join(modelDir, 'tokenizer_config.json');
  if (!existsSync(configFile)) return null;
  const template = (JSON.parse(readFileSync(configFile, 'utf8')) as { chat_template?: unknown }).chat_template;
  return typeof template === 'string' ? template : template === undefined ? null : JSON.stringify(template);
}

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

let version: string | undefined;

/** tokentap's own version, from its package.json (two folders up from dist/export/ and from export/). */
export function tokentapVersion(): string {
  if (version !== undefined) return version;
  for (const relative of ['../../package.json', '../package.json']) {
    const file = new URL(relative, import.meta.url);
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (manifest.name === 'tokentap' && typeof manifest.version === 'string') return (version = manifest.version);
  }
  return (version = 'unknown');
}
