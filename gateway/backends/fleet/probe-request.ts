import { isRecord } from '../../../core/json/is-record.js';
import { readBackendBodySettled } from '../read-backend-body.js';
import type { BackendClient } from '../vllm.js';

/** One probe request's outcome: the status and JSON of an answer, or why none came, in words. */
export type ProbeAnswer = { ok: true; status: number; json: unknown; text: string } | { ok: false; error: string };

/**
 * Sends one probe request (a GET, or a POST when `body` is given) and reads the whole answer; never throws, so a
 * replica that is down, slow or strange becomes a line in its snapshot instead of a failed start.
 *
 * @example
 * const answer = await probeRequest(client, '/version', signal); // { ok: true, status: 200, json: { version: '0.11.0' }, ... }
 */
export async function probeRequest(client: BackendClient, path: string, signal: AbortSignal, body?: unknown): Promise<ProbeAnswer> {
  const method = body === undefined ? 'GET' : 'POST';
  try {
    const response = body === undefined ? await client.get(path, signal) : await client.postJson(path, body, signal);
    const read = await readBackendBodySettled(response);
    if ('failure' in read) return { ok: false, error: `${method} ${path}: ${failureWords(read.failure, signal)}` };
    return { ok: true, status: response.statusCode, json: read.json, text: read.text };
  } catch (error) {
    return { ok: false, error: `${method} ${path}: ${failureWords(error, signal)}` };
  }
}

/** The error message a server put in an answer (OpenAI's nested `error.message`, vLLM's flat one, FastAPI's `detail`), or its text. */
export function answerMessage(answer: { json: unknown; text: string }): string {
  const json = answer.json;
  if (isRecord(json)) {
    const nested = json.error;
    if (isRecord(nested) && typeof nested.message === 'string') return nested.message;
    if (typeof json.message === 'string') return json.message;
    if (typeof json.detail === 'string') return json.detail;
  }
  return answer.text.slice(0, 200);
}

function failureWords(error: unknown, signal: AbortSignal): string {
  if (signal.aborted)
    return signal.reason instanceof Error && signal.reason.name === 'TimeoutError' ? 'no answer within probeTimeoutMs' : 'cancelled';
  return error instanceof Error ? error.message : String(error);
}
