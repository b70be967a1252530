import { isRecord } from '../../../core/json/is-record.js';
import { readAnthropicBlocks, readResponsesItem } from './read-request-messages.js';
import { readResponseMessage } from './read-response-message.js';
import type { ReadableMessage } from './readable-message.js';

/**
 * The harness's own answer as the front door rendered it (the gateway's `harnessResponseBody`, which ui/ may not
 * import: it sits below gateway/).
 */
export interface HarnessResponseBody {
  /** 'openai-chat' | 'openai-completions' | 'anthropic-messages' | 'openai-responses' */
  protocol: string;
  body: Record<string, unknown>;
}

/** The answer the harness got, read into one shape, with a line naming what kind of body it is. */
export interface HarnessReply {
  /** e.g. `an Anthropic Message msg_… (stop_reason end_turn; content blocks: thinking, text)` */
  summary: string;
  message: ReadableMessage;
}

/**
 * The harness's own body read as a message: an Anthropic Message's content blocks, a Responses object's output
 * items, or choice 0 of an OpenAI body; null when the body has none of these.
 *
 * @example readHarnessReply({ protocol: 'anthropic-messages', body: message, notReproduced: [] })?.summary
 */
export function readHarnessReply(harness: HarnessResponseBody): HarnessReply | null {
  const body = harness.body;
  if (harness.protocol === 'anthropic-messages') {
    const blocks = Array.isArray(body.content) ? body.content : [];
    const types = blocks.map((block) => (isRecord(block) ? String(block.type) : '?')).join(', ') || 'none';
    return {
      summary: `an Anthropic Message ${String(body.id)} (stop_reason ${String(body.stop_reason)}; content blocks: ${types})`,
      message: { role: typeof body.role === 'string' ? body.role : '?', parts: readAnthropicBlocks(blocks) },
    };
  }
  if (harness.protocol === 'openai-responses') {
    const items = Array.isArray(body.output) ? body.output : [];
    const types = items.map((item) => (isRecord(item) ? String(item.type) : '?')).join(', ') || 'none';
    return {
      summary: `a Responses object ${String(body.id)} (status ${String(body.status)}; output items: ${types})`,
      message: { role: 'assistant', parts: items.flatMap((item) => readResponsesItem(item).parts) },
    };
  }
  const message = readResponseMessage(body);
  if (message === null) return null;
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : {};
  return { summary: `an OpenAI ${String(body.object ?? 'body')} (finish_reason ${String(choice.finish_reason ?? '-')})`, message };
}
