/** vLLM's two error body shapes: nested since v0.10.1 (PR #22099), flat `object: "error"` before. */
export type ErrorShape = 'nested' | 'flat';

// the `type` vLLM puts in its ErrorResponse for the statuses it produces (HTTPStatus-based names)
const ERROR_TYPES: Record<number, string> = {
  400: 'BadRequestError',
  401: 'UnauthorizedError',
  404: 'NotFoundError',
  429: 'TooManyRequestsError',
  500: 'InternalServerError',
  501: 'NotImplementedError',
  503: 'ServiceUnavailableError',
};

/**
 * An error the simulated vLLM answers with. It is not tokentap's `TokentapError`: these are the backend's
 * own errors, which the gateway under test must read, so they carry vLLM's `type`/`param`/`code` fields.
 *
 * @example
 * throw new VllmError(404, 'The model `x` does not exist.', { param: 'model' });
 */
export class VllmError extends Error {
  readonly status: number;
  readonly type: string;
  readonly param: string | null;

  constructor(status: number, message: string, options: { param?: string | null; type?: string } = {}) {
    super(message);
    this.name = 'VllmError';
    this.status = status;
    this.type = options.type ?? errorTypeFor(status);
    this.param = options.param ?? null;
  }
}

/** @example errorTypeFor(429) // 'TooManyRequestsError' */
export function errorTypeFor(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'InternalServerError' : 'BadRequestError');
}

/**
 * The JSON body vLLM sends for an error, in the requested shape (key order as pydantic dumps it).
 *
 * @example
 * vllmErrorBody(new VllmError(400, 'bad'), 'nested');
 * // { error: { message: 'bad', type: 'BadRequestError', param: null, code: 400 } }
 */
export function vllmErrorBody(error: VllmError, shape: ErrorShape): Record<string, unknown> {
  if (shape === 'flat') {
    return { object: 'error', message: error.message, type: error.type, param: error.param, code: error.status };
  }
  return { error: { message: error.message, type: error.type, param: error.param, code: error.status } };
}

/**
 * The context-length error, worded like the vLLM of each shape: the newer renderer's message with its
 * `(parameter=input_tokens, value=N)` suffix (seen verbatim in a real nested-shape 400), or the pre-0.10.1
 * message from vllm-project/vllm#12886.
 *
 * @example
 * contextLengthError({ maxModelLen: 4096, promptTokens: 4000, maxTokens: 200, shape: 'nested' });
 */
export function contextLengthError(input: { maxModelLen: number; promptTokens: number; maxTokens: number; shape: ErrorShape }): VllmError {
  const { maxModelLen, promptTokens, maxTokens } = input;
  const total = promptTokens + maxTokens;
  if (input.shape === 'flat') {
    return new VllmError(
      400,
      `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${total} tokens ` +
        `(${promptTokens} in the messages, ${maxTokens} in the completion). ` +
        'Please reduce the length of the messages or completion.',
    );
  }
  return new VllmError(
    400,
    `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${maxTokens} output ` +
      `tokens and your prompt contains ${promptTokens} input tokens, for a total of ${total} tokens. ` +
      'Please reduce the length of the input prompt or the number of requested output tokens. ' +
      `(parameter=input_tokens, value=${promptTokens})`,
    { param: 'input_tokens' },
  );
}
