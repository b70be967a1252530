import type { TokentapError } from '../../../core/errors/tokentap-error.js';
import { normalizeBackendErrorBody, type OpenAiErrorBody } from '../../errors/openai-error-body.js';

/** Anthropic's error shape, in responses and as the `error` SSE event. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/**
 * HTTP status -> Anthropic's error type (docs.anthropic.com/en/api/errors). 503 and 529 are both "overloaded":
 * the SDKs and Claude Code retry those with back-off.
 */
const TYPES_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** @example anthropicErrorType(429) // 'rate_limit_error' */
export function anthropicErrorType(status: number): string {
  return TYPES_BY_STATUS[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function number(text: string, pattern: RegExp): number | null {
  const match = pattern.exec(text);
  return match?.[1] === undefined ? null : Number(match[1]);
}

/**
 * A backend's context-length message reworded as Anthropic words it, so Claude Code recognises it and compacts
 * (it reacts to "prompt is too long"). The numbers are read from vLLM's wordings when they are there: the
 * flat (< 0.10.1) "(N in the messages, M in the completion)", the nested "requested M output tokens and your
 * prompt contains N input tokens", and "'max_tokens' ... is too large: M ... your request has N input tokens".
 *
 * @example contextLengthMessage("This model's maximum context length is 8 tokens. However, you requested 20 tokens (12 in the messages, 8 in the completion).")
 * // 'prompt is too long: input length and `max_tokens` exceed context limit: 12 + 8 > 8, ...'
 */
export function contextLengthMessage(backendMessage: string): string {
  const limit = number(backendMessage, /maximum context length is (\d+)/i) ?? number(backendMessage, /context length \((\d+)/i);
  const input =
    number(backendMessage, /(\d+) in the messages/i) ??
    number(backendMessage, /contains (\d+) input tokens/i) ??
    number(backendMessage, /has (\d+) input tokens/i) ??
    number(backendMessage, /input \((\d+) tokens\)/i);
  const output =
    number(backendMessage, /(\d+) in the completion/i) ??
    number(backendMessage, /requested (\d+) output tokens/i) ??
    number(backendMessage, /is too large: (\d+)/i);
  if (limit === null || input === null) return `prompt is too long: ${backendMessage}`;
  if (input >= limit || output === null) return `prompt is too long: ${input} tokens > ${limit} maximum`;
  return `prompt is too long: input length and \`max_tokens\` exceed context limit: ${input} + ${output} > ${limit}, decrease input length or \`max_tokens\` and try again`;
}

function fromOpenAiShape(normalized: OpenAiErrorBody, status: number): { status: number; body: AnthropicErrorBody } {
  if (normalized.error.code === 'context_length_exceeded') {
    return {
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: contextLengthMessage(normalized.error.message) } },
    };
  }
  return { status, body: { type: 'error', error: { type: anthropicErrorType(status), message: normalized.error.message } } };
}

/**
 * The status and Anthropic body for a failure. A backend's own error (already normalized to OpenAI's shape by
 * the pipeline, or the raw body of a mid-stream error) keeps its message; context-length errors become 400
 * invalid_request_error "prompt is too long".
 *
 * @example const { status, body } = toAnthropicError(failure); reply.code(status).send(body)
 */
export function toAnthropicError(failure: TokentapError, backendBody?: unknown): { status: number; body: AnthropicErrorBody } {
  if (backendBody !== undefined) {
    const normalized = normalizeBackendErrorBody(backendBody, failure.status);
    const code = normalized.error.code;
    return fromOpenAiShape(normalized, typeof code === 'number' && code >= 400 && code < 600 ? code : failure.status);
  }
  const { body } = failure;
  if (failure.code === 'TT_BACKEND_ERROR' && typeof body === 'object' && body !== null && 'error' in body) {
    return fromOpenAiShape(body as OpenAiErrorBody, failure.status);
  }
  return { status: failure.status, body: { type: 'error', error: { type: anthropicErrorType(failure.status), message: failure.message } } };
}
