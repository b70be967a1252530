import { deflateSync, inflateSync } from 'node:zlib';

/** Deflates text (UTF-8). Bodies and SSE streams are repetitive JSON: deflate typically shrinks them 3-10x. */
export function compressText(text: string): Buffer {
  return deflateSync(Buffer.from(text, 'utf8'));
}

export function decompressText(bytes: Buffer): string {
  return inflateSync(bytes).toString('utf8');
}

/** Deflates `value` as JSON text; `undefined` is stored as JSON `null`, as JSON.stringify would inside an array. */
export function compressJson(value: unknown): Buffer {
  return compressText(JSON.stringify(value) ?? 'null');
}

export function decompressJson(bytes: Buffer): unknown {
  return JSON.parse(decompressText(bytes));
}
