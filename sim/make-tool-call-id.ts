import { randomBytes } from 'node:crypto';

/**
 * A tool-call id in vLLM's default form (`make_tool_call_id`): `chatcmpl-tool-` and 32 hex digits, as the
 * captures show (`chatcmpl-tool-ca99dda515524c6abe47d1ea22813507`).
 *
 * @example
 * makeToolCallId(); // 'chatcmpl-tool-a7348842dffa4c4795f7f8ae2cc1b328'
 */
export function makeToolCallId(): string {
  return `chatcmpl-tool-${randomBytes(16).toString('hex')}`;
}
