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

/**
 * The id vLLM's `qwen3_coder` and `deepseek_v32` parsers give a streamed call (`_generate_tool_call_id`:
 * `call_` and 24 hex digits); their whole answers keep the default `chatcmpl-tool-…`.
 *
 * @example
 * makeStreamedCallId(); // 'call_3f2a9c0d1e4b5a6978c0d1e2'
 */
export function makeStreamedCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}
