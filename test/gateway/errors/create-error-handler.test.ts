import { afterEach, describe, expect, it } from 'vitest';
import fastify, { type FastifyInstance } from 'fastify';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { createErrorHandler } from '../../../gateway/errors/create-error-handler.js';

/** A protocol of its own: the factory must send exactly what `answer` returns, nothing of OpenAI's or Anthropic's. */
const errors = createErrorHandler({ answer: (failure) => ({ status: failure.status === 404 ? 410 : failure.status, body: { oops: failure.code } }) });

let app: FastifyInstance;

afterEach(async () => {
  await app.close();
});

function appWithScope(): FastifyInstance {
  app = fastify({ logger: false });
  void app.register(
    async (scope) => {
      errors.setOn(scope);
      scope.post('/thrown', async () => {
        throw new TokentapError('TT_RATE_LIMITED');
      });
      scope.post('/json', async (request) => request.body);
      scope.get('/crash', async () => {
        throw new Error('a bug');
      });
    },
    { prefix: '/p' },
  );
  return app;
}

describe('createErrorHandler: one error door, each protocol passing its own answer', () => {
  it("answers a TokentapError thrown by a route with the protocol's status and body", async () => {
    const response = await appWithScope().inject({ method: 'POST', url: '/p/thrown' });
    expect(response.statusCode).toBe(429);
    expect(response.json()).toEqual({ oops: 'TT_RATE_LIMITED' });
  });

  it("turns fastify's own refusals (bad JSON, an unknown error) into TokentapErrors before answering", async () => {
    const badJson = await appWithScope().inject({
      method: 'POST',
      url: '/p/json',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect([badJson.statusCode, badJson.json()]).toEqual([400, { oops: 'TT_INVALID_REQUEST' }]);
    const crash = await app.inject({ method: 'GET', url: '/p/crash' });
    expect([crash.statusCode, crash.json()]).toEqual([500, { oops: 'TT_INTERNAL' }]);
  });

  it('answers unknown routes under the scope as TT_NOT_FOUND through the same answer', async () => {
    const response = await appWithScope().inject({ method: 'GET', url: '/p/nothing-here' });
    expect(response.statusCode).toBe(410);
    expect(response.json()).toEqual({ oops: 'TT_NOT_FOUND' });
  });

  it('send() answers a failure outside any route in the same shape (what the router refuses)', async () => {
    app = fastify({ logger: false });
    app.get('/direct', (_request, reply) => errors.send(reply, new TokentapError('TT_INVALID_REQUEST', { message: 'bad URL' })));
    const response = await app.inject({ method: 'GET', url: '/direct' });
    expect([response.statusCode, response.json()]).toEqual([400, { oops: 'TT_INVALID_REQUEST' }]);
  });
});
