import { isRecord } from '../../../core/json/is-record.js';
import { readChatMessage, type ReadableMessage } from './readable-message.js';

/**
 * The reply in a recorded response body (the backend's answer; for a stream, the body assembled from its chunks):
 * choice 0's `message` for chat, its `text` for a completion; null when there is none (the call failed first).
 * The harness of a translated front door (Anthropic, Responses) got the same reply in its own protocol's shape.
 *
 * @example readResponseMessage({ choices: [{ message: { role: 'assistant', content: 'hi' } }] }) // { role: 'assistant', parts: [{ kind: 'text', text: 'hi' }] }
 */
export function readResponseMessage(body: unknown): ReadableMessage | null {
  const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isRecord(choice)) return null;
  if (isRecord(choice.message)) return readChatMessage(choice.message);
  if (typeof choice.text === 'string') return { role: 'completion', parts: choice.text === '' ? [] : [{ kind: 'text', text: choice.text }] };
  return null;
}
