import type { BackendResponse } from './vllm.js';
import { mapBackendFailure } from '../errors/map-backend-failure.js';

/** A backend body read as far as it came: its text, its JSON when that parses, and what ended it early, if anything. */
export interface BackendBodyRead {
  text: string;
  json: unknown;
  /** present (`'failure' in read`) when the read failed: its error (a cut socket, a body timeout, the gateway's abort), unmapped, as the caller knows who left */
  failure?: unknown;
}

/**
 * Reads a whole (non-streamed) backend body as text and, when it parses, JSON.
 * @example const { text, json } = await readBackendBody(response)
 */
export async function readBackendBody(response: BackendResponse): Promise<{ text: string; json: unknown }> {
  const read = await readBackendBodySettled(response);
  if ('failure' in read) throw mapBackendFailure(read.failure, { started: true });
  return { text: read.text, json: read.json };
}

/**
 * Reads a whole backend body and never throws: a read that fails returns the bytes that came before with the
 * failure, so a caller can record both (a backend that cuts its error body, or a harness that leaves while it
 * is read, must still end the call: issue 12, rows stuck `in_progress`).
 *
 * @example const read = await readBackendBodySettled(response); if ('failure' in read) record(read.text, read.failure)
 */
export async function readBackendBodySettled(response: BackendResponse): Promise<BackendBodyRead> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response.body) chunks.push(chunk);
  } catch (error) {
    return { text: Buffer.concat(chunks).toString('utf8'), json: undefined, failure: error };
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return { text, json: undefined };
  }
}
