import { describe, expect, it } from 'vitest';
import { normalizeBackendErrorBody } from '../../../../gateway/errors/openai-error-body.js';

// SGLang's error bodies: protocol.py ErrorResponse (flat, like vLLM < 0.10.1) on the OpenAI endpoints and for request
// validation (http_server.py validation_exception_handler, 400), `{"error": {"message"}}` from /generate
// (_create_error_response), and FastAPI's `{"detail"}` for the HTTPException a 503/500 abort raises
// (tokenizer_manager.py _handle_abort_finish_reason)
describe("SGLang's error bodies in OpenAI's shape", () => {
  it("reads SGLang's context-length wording as context_length_exceeded, from the chat and the /generate shape", () => {
    const message = "The input (40961 tokens) is longer than the model's context length (40960 tokens).";
    const expected = { message, type: 'invalid_request_error', param: null, code: 'context_length_exceeded' };
    expect(normalizeBackendErrorBody({ object: 'error', message, type: 'BadRequest', param: null, code: 400 }, 400).error).toEqual(expected);
    expect(normalizeBackendErrorBody({ error: { message } }, 400).error).toEqual(expected);
  });

  it('keeps the message of a FastAPI detail body', () => {
    expect(normalizeBackendErrorBody({ detail: 'The server is overloaded. Please retry.' }, 503).error).toEqual({
      message: 'The server is overloaded. Please retry.',
      type: 'api_error',
      param: null,
      code: 503,
    });
  });

  it("keeps SGLang's flat error as it worded it", () => {
    const body = { object: 'error', message: 'Tools cannot be empty if tool choice is set to required.', type: 'BadRequest', param: null, code: 400 };
    expect(normalizeBackendErrorBody(body, 400).error).toEqual({ message: body.message, type: 'BadRequest', param: null, code: 400 });
  });
});
