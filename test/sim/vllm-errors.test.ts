import { describe, expect, it } from 'vitest';
import { createSimBackend } from '../../sim/index.js';
import { postJson, startSim } from './sim-test-helpers.js';

const ASK = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'Hello there' }] };

describe('vLLM error responses', () => {
  it('words context-length overflow like vLLM, nested with param input_tokens', async () => {
    const { sim, url } = await startSim({ maxModelLen: 64 });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, { ...ASK, max_tokens: 60 });
      expect(response.status).toBe(400);
      const promptTokens = 10; // <|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n
      expect(await response.json()).toEqual({
        error: {
          message:
            "This model's maximum context length is 64 tokens. However, you requested 60 output tokens and your prompt " +
            `contains ${promptTokens} input tokens, for a total of ${promptTokens + 60} tokens. Please reduce the length of the ` +
            `input prompt or the number of requested output tokens. (parameter=input_tokens, value=${promptTokens})`,
          type: 'BadRequestError',
          param: 'input_tokens',
          code: 400,
        },
      });
      expect(sim.log[0]).toMatchObject({ status: 400, promptTokenIds: expect.any(Array), finishReason: null });
      expect(sim.log[0]!.promptTokenIds).toHaveLength(promptTokens);
    } finally {
      await sim.close();
    }
  });

  it('uses the flat pre-0.10.1 shape and wording when asked', async () => {
    const { sim, url } = await startSim({ maxModelLen: 64, errorShape: 'flat' });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, { ...ASK, max_tokens: 60 });
      expect(await response.json()).toEqual({
        object: 'error',
        message:
          "This model's maximum context length is 64 tokens. However, you requested 70 tokens (10 in the messages, 60 in " +
          'the completion). Please reduce the length of the messages or completion.',
        type: 'BadRequestError',
        param: null,
        code: 400,
      });
    } finally {
      await sim.close();
    }
  });

  it('answers an unknown model with 404 and n > 1 with 400', async () => {
    const sim = await createSimBackend();
    try {
      const unknown = await sim.app.inject({ method: 'POST', url: '/v1/chat/completions', payload: { ...ASK, model: 'gpt-4o' } });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({
        error: { message: 'The model `gpt-4o` does not exist.', type: 'NotFoundError', param: 'model', code: 404 },
      });
      const many = await sim.app.inject({ method: 'POST', url: '/v1/chat/completions', payload: { ...ASK, n: 2 } });
      expect(many.statusCode).toBe(400);
      expect(many.json().error).toMatchObject({ type: 'BadRequestError', param: 'n', code: 400 });
      const streamOptions = await sim.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        payload: { ...ASK, stream_options: { include_usage: true } },
      });
      expect(streamOptions.json().error.message).toBe('Stream options can only be defined when `stream=True`.');
      const notFound = await sim.app.inject({ method: 'GET', url: '/v1/nothing' });
      expect(notFound.statusCode).toBe(404);
      expect(notFound.json()).toEqual({ detail: 'Not Found' });
    } finally {
      await sim.close();
    }
  });

  it('rejects malformed bodies with 400 in vLLM shape', async () => {
    const sim = await createSimBackend();
    try {
      const badJson = await sim.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
        payload: '{"messages": [',
      });
      expect(badJson.statusCode).toBe(400);
      expect(badJson.json().error.type).toBe('BadRequestError');
      const noMessages = await sim.app.inject({ method: 'POST', url: '/v1/chat/completions', payload: { model: 'Qwen/Qwen3-8B' } });
      expect(noMessages.statusCode).toBe(400);
      expect(noMessages.json().error.param).toBe('messages');
    } finally {
      await sim.close();
    }
  });
});
