import type { BackendResponse } from './vllm.js';
import { mapBackendFailure } from '../errors/map-backend-failure.js';

/**
 * Reads a whole (non-streamed) backend body as text and, when it parses, JSON.
 * @example const { text, json } = await readBackendBody(response)
 */
export async function readBackendBody(response: BackendResponse): Promise<{ text: string; json: unknown }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response.body) chunks.push(chunk);
  } catch (error) {
    throw mapBackendFailure(error, { started: true });
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { text, json: JSON.parse(text) as unknown };
  } catch {
    return { text, json: undefined };
  }
}
