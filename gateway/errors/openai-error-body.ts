import type { TokentapError } from '../../core/errors/tokentap-error.js';

/** OpenAI's error shape, used by Chat Completions, Completions and Responses front doors. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | number | null };
}

/**
 * vLLM's context-length wording, in the flat (< 0.10.1) and nested (>= 0.10.1) error bodies alike, and SGLang's
 * ("The input (N tokens) is longer than the model's context length (M tokens).", "Requested token count exceeds the
 * model's maximum context length ...").
 */
const CONTEXT_LENGTH_PATTERN =
  /maximum context length|context length is|prompt is too long|exceeds the model's context|longer than the model's context length/i;

/**
 * Builds OpenAI's error body for a TokentapError.
 * @example reply.status(error.status).send(toOpenAiErrorBody(error))
 */
export function toOpenAiErrorBody(error: TokentapError): OpenAiErrorBody {
  return { error: { message: error.message, type: error.type, param: error.param, code: error.code } };
}

/**
 * The status and OpenAI body for a failure, as the OpenAI front doors, the models route and the error handler of
 * the root scope answer it. A backend error already normalized to OpenAI's shape goes out as the backend worded it.
 *
 * @example const { status, body } = toOpenAiError(failure); reply.code(status).send(body)
 */
export function toOpenAiError(failure: TokentapError): { status: number; body: OpenAiErrorBody } {
  const { body } = failure;
  const isBackendBody = failure.code === 'TT_BACKEND_ERROR' && typeof body === 'object' && body !== null && 'error' in body;
  return { status: failure.status, body: isBackendBody ? (body as OpenAiErrorBody) : toOpenAiErrorBody(failure) };
}

function readString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/**
 * Turns a backend's error body (vLLM nested or flat shape, SGLang's flat `ErrorResponse`, its `/generate`
 * `{"error": {"message"}}` and FastAPI's `{"detail"}`, or anything else) into OpenAI's shape, keeping
 * message, type and param. A context-length error gets the code `context_length_exceeded`, which OpenAI
 * clients and harnesses react to by compacting instead of failing.
 *
 * @example normalizeBackendErrorBody({ object: 'error', message: 'boom', type: 'BadRequestError', code: 400 }, 400)
 */
export function normalizeBackendErrorBody(body: unknown, status: number): OpenAiErrorBody {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const inner = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : record;
  // FastAPI's own errors (SGLang raises HTTPException for a 503/500 abort) say `{"detail": "..."}`
  const rawMessage =
    readString(inner.message) ??
    readString(record.detail) ??
    (typeof body === 'string' && body.length > 0 ? body : `Backend answered HTTP ${status}`);
  const isContextLength = CONTEXT_LENGTH_PATTERN.test(rawMessage);
  const code = isContextLength ? 'context_length_exceeded' : ((inner.code as string | number | null | undefined) ?? status);
  return {
    error: {
      message: rawMessage,
      type: isContextLength ? 'invalid_request_error' : (readString(inner.type) ?? (status >= 500 ? 'api_error' : 'invalid_request_error')),
      param: readString(inner.param),
      code,
    },
  };
}
