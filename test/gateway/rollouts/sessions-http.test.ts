import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { CreatedSession, SessionInfo } from '../../../gateway/rollouts/rollout-api.js';
import { hashSessionKey } from '../../../gateway/rollouts/session-keys.js';
import { api, chatBody, postChat, startRolloutGateway } from './rollout-test-helpers.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function createSession(body: Record<string, unknown> = {}): Promise<CreatedSession> {
  const answer = await api<CreatedSession>(setup as GatewayWithSim, 'POST', '/sessions', { body });
  expect(answer.status).toBe(201);
  return answer.body;
}

describe('POST /tokentap/v1/sessions', () => {
  it('answers the id, a tt- key of 256 random bits and base URLs per protocol; only the key hash is stored', async () => {
    setup = await startRolloutGateway();
    const created = await createSession({ id: 'rollout-1', groupId: 'task-7', task: { question: 'add 2 and 2' }, tags: ['math'], split: 'train' });
    expect(created.apiKey).toMatch(/^tt-[A-Za-z0-9_-]{43}$/);
    expect(created.baseUrls).toEqual({ openai: `${setup.url}/s/rollout-1/v1`, anthropic: `${setup.url}/s/rollout-1` });
    expect(created.session).toMatchObject({
      id: 'rollout-1',
      origin: 'api',
      status: 'open',
      groupId: 'task-7',
      task: { question: 'add 2 and 2' },
      tags: ['math'],
      split: 'train',
      hasKey: true,
      reward: null,
    });
    const other = await createSession();
    expect(other.session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(other.apiKey).not.toBe(created.apiKey);
    await setup.gateway.close();
    // the file holds the key's hash (so we are looking at the right bytes) and never the key
    const file = readFileSync(setup.gateway.config.db);
    expect(file.includes(hashSessionKey(created.apiKey))).toBe(true);
    expect(file.includes(Buffer.from(created.apiKey.slice(3)))).toBe(false);
  });

  it('needs the admin token: none, a wrong one or a session key are refused and nothing is created', async () => {
    setup = await startRolloutGateway();
    const { apiKey } = await createSession({ id: 'mine' });
    expect((await api(setup, 'POST', '/sessions', { body: { id: 'a' }, credential: null })).body).toMatchObject({
      error: { code: 'TT_UNAUTHORIZED' },
    });
    const wrong = await api(setup, 'POST', '/sessions', { body: { id: 'b' }, credential: 'not-the-admin-token-at-all' });
    expect([wrong.status, wrong.body]).toEqual([401, { error: { code: 'TT_UNAUTHORIZED', message: 'Wrong admin token' } }]);
    const byKey = await api(setup, 'POST', '/sessions', { body: { id: 'c' }, credential: apiKey });
    expect([byKey.status, (byKey.body as { error: { code: string } }).error.code]).toEqual([403, 'TT_FORBIDDEN']);
    expect(setup.gateway.store.listSessions().map((session) => session.id)).toEqual(['mine']);
  });

  it('refuses bad JSON, unknown fields, bad ids and an id in use with one error shape, creating nothing', async () => {
    setup = await startRolloutGateway();
    await createSession({ id: 'taken' });
    const cases: Array<[unknown, number, string]> = [
      ['{"id": ', 400, 'TT_INVALID_REQUEST'],
      [{ id: 'x', colour: 'red' }, 400, 'TT_INVALID_REQUEST'],
      [{ id: 'has space' }, 400, 'TT_INVALID_REQUEST'],
      [{ sampling: { temperature: -1 } }, 400, 'TT_INVALID_REQUEST'],
      [{ split: 'holdout' }, 400, 'TT_INVALID_REQUEST'],
      [{ id: 'taken' }, 409, 'TT_SESSION_EXISTS'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await api<{ error: { code: string; message: string } }>(setup, 'POST', '/sessions', { body });
      expect([answer.status, answer.body.error.code, Object.keys(answer.body), Object.keys(answer.body.error)]).toEqual([
        status,
        code,
        ['error'],
        ['code', 'message'],
      ]);
    }
    expect(setup.gateway.store.listSessions().map((session) => session.id)).toEqual(['taken']);
  });

  it('serves an OpenAPI document of the rollout API only', async () => {
    setup = await startRolloutGateway();
    const answer = await api<{ openapi: string; paths: Record<string, unknown> }>(setup, 'GET', '/openapi.json', { credential: null });
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe('3.0.3');
    expect(Object.keys(answer.body.paths).sort()).toEqual([
      '/tokentap/v1/backends',
      '/tokentap/v1/backends/{id}/drain',
      '/tokentap/v1/backends/{id}/undrain',
      '/tokentap/v1/batches',
      '/tokentap/v1/batches/{batchId}/ack',
      '/tokentap/v1/batches/{batchId}/release',
      '/tokentap/v1/events',
      '/tokentap/v1/groups',
      '/tokentap/v1/groups/{groupId}',
      '/tokentap/v1/pause',
      '/tokentap/v1/policy-version',
      '/tokentap/v1/resume',
      '/tokentap/v1/sessions',
      '/tokentap/v1/sessions/{sessionId}',
      '/tokentap/v1/sessions/{sessionId}/end',
      '/tokentap/v1/sessions/{sessionId}/reward',
      '/tokentap/v1/sessions/{sessionId}/rewards',
      '/tokentap/v1/state',
    ]);
    expect(JSON.stringify(answer.body.paths['/tokentap/v1/sessions'])).toContain('groupId');
  });
});

describe('the session key selects the session', () => {
  it('records an OpenAI client on the session base URL and on /v1 with the key alone', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'four' }] } });
    const { session, apiKey, baseUrls } = await createSession({ id: 'r-openai' });
    const client = new OpenAI({ baseURL: baseUrls.openai, apiKey, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'add 2 and 2' }] });
    expect(answer.choices[0]?.message.content).toBe('four');
    expect((await postChat(`${setup.url}/v1`, apiKey, chatBody('again'))).status).toBe(200);
    const calls = setup.gateway.store.listCalls(session.id);
    expect(calls.map((call) => call.metadata.sessionSource)).toEqual(['path', 'key']);
    expect(setup.gateway.store.listCalls('default')).toEqual([]);
    expect(JSON.stringify(setup.gateway.store.getCallBodies(calls[0]?.id ?? ''))).not.toContain(apiKey);
  });

  it('records an Anthropic client sending the key as x-api-key', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'four' }] } });
    const { session, apiKey, baseUrls } = await createSession();
    const client = new Anthropic({ baseURL: baseUrls.anthropic, apiKey, maxRetries: 0 });
    const message = await client.messages.create({ model: 'Qwen/Qwen3-8B', max_tokens: 100, messages: [{ role: 'user', content: 'add 2 and 2' }] });
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'four' })]);
    expect(setup.gateway.store.listCalls(session.id).map((call) => call.frontDoor)).toEqual(['anthropic-messages']);
  });

  it('refuses a key for another session (403) and an unknown key (401), in each protocol shape, recording nothing', async () => {
    setup = await startRolloutGateway();
    const mine = await createSession({ id: 'mine' });
    await createSession({ id: 'theirs' });
    const forbidden = await postChat(`${setup.url}/s/theirs/v1`, mine.apiKey, chatBody('hi'));
    expect([forbidden.status, forbidden.body]).toMatchObject([403, { error: { code: 'TT_FORBIDDEN', type: 'permission_error' } }]);
    const unknown = await postChat(`${setup.url}/s/mine/v1`, 'tt-not-a-key-of-any-session', chatBody('hi'));
    expect([unknown.status, unknown.body]).toMatchObject([401, { error: { code: 'TT_UNAUTHORIZED' } }]);
    const anthropic = await fetch(`${setup.url}/s/theirs/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': mine.apiKey },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect([anthropic.status, await anthropic.json()]).toMatchObject([403, { type: 'error', error: { type: 'permission_error' } }]);
    expect(setup.gateway.store.stats().calls).toBe(0);
  });

  it('with requireSessionKey, calls without a key are refused; implicit sessions are off', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'ok' }] } }, { requireSessionKey: true });
    const { apiKey, baseUrls } = await createSession({ id: 'keyed' });
    const refused = await postChat(setup.openaiBase('by-path'), 'sk-anything', chatBody('hi'));
    expect([refused.status, refused.body]).toMatchObject([401, { error: { code: 'TT_UNAUTHORIZED' } }]);
    expect((await postChat(`${setup.url}/v1`, null, chatBody('hi'))).status).toBe(401);
    expect((await postChat(baseUrls.openai, apiKey, chatBody('hi'))).status).toBe(200);
    expect(setup.gateway.store.listSessions().map((session) => session.id)).toEqual(['keyed']);
  });

  it('forces the session sampling overrides on every backend request and records them', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'ok' }] } });
    const { session, apiKey, baseUrls } = await createSession({ sampling: { temperature: 1, top_p: 0.95, max_tokens: 64 } });
    await postChat(baseUrls.openai, apiKey, chatBody('hi', { temperature: 0, max_completion_tokens: 9 }));
    const [call] = setup.gateway.store.listCalls(session.id);
    expect(call?.samplingParams).toMatchObject({ temperature: 1, top_p: 0.95, max_tokens: 64, max_completion_tokens: 64 });
    expect(call?.metadata.samplingOverrides).toEqual({ temperature: 1, top_p: 0.95, max_tokens: 64 });
    expect(setup.gateway.store.getCallBodies(call?.id ?? '')?.requestBody).toMatchObject({ temperature: 0 });
  });
});

describe('ending sessions', () => {
  it('ends explicitly; later calls get 409 in the protocol shape and a second end changes nothing', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'ok' }] } });
    const { session, apiKey, baseUrls } = await createSession();
    const ended = await api<SessionInfo>(setup, 'POST', `/sessions/${session.id}/end`, { body: { status: 'truncated' } });
    expect(ended.body).toMatchObject({ status: 'truncated', endReason: 'explicit' });
    const call = await postChat(baseUrls.openai, apiKey, chatBody('hi'));
    expect([call.status, call.body]).toMatchObject([409, { error: { code: 'TT_SESSION_ENDED' } }]);
    const anthropic = await new Anthropic({ baseURL: baseUrls.anthropic, apiKey, maxRetries: 0 }).messages
      .create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(anthropic).toMatchObject({ status: 409, error: { type: 'error', error: { type: 'invalid_request_error' } } });
    const responses = await fetch(`${baseUrls.openai}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model: 'm', input: 'hi' }),
    });
    expect([responses.status, await responses.json()]).toMatchObject([409, { error: { code: 'TT_SESSION_ENDED' } }]);
    const again = await api(setup, 'POST', `/sessions/${session.id}/end`, { body: { status: 'completed' } });
    expect([again.status, again.body]).toMatchObject([409, { error: { code: 'TT_SESSION_ENDED' } }]);
    expect((await api<SessionInfo>(setup, 'GET', `/sessions/${session.id}`)).body.status).toBe('truncated');
    expect(setup.gateway.store.stats().calls).toBe(0);
  });

  it('a session key ends its own session only; unknown sessions are 404 for the admin', async () => {
    setup = await startRolloutGateway();
    const mine = await createSession({ id: 'mine' });
    await createSession({ id: 'theirs' });
    expect((await api(setup, 'POST', '/sessions/theirs/end', { body: {}, credential: mine.apiKey })).status).toBe(403);
    expect((await api(setup, 'POST', '/sessions/mine/end', { credential: mine.apiKey })).status).toBe(200);
    expect((await api(setup, 'GET', '/sessions/nope')).body).toMatchObject({ error: { code: 'TT_SESSION_NOT_FOUND' } });
    expect((await api(setup, 'POST', '/sessions/nope/end', { body: {} })).status).toBe(404);
    expect((await api(setup, 'POST', '/sessions/mine/end', { body: { status: 'finished' } })).status).toBe(400);
    expect(setup.gateway.store.getRollout('theirs')?.status).toBe('open');
  });

  it('ends a rollout session idle for sessionIdleTimeoutMs as aborted, and tells session-end listeners', async () => {
    setup = await startRolloutGateway({}, { sessionIdleTimeoutMs: 30 });
    const ended = new Promise((resolve) => setup?.gateway.on('session-end', resolve));
    const { session } = await createSession({ groupId: 'g' });
    expect(await ended).toMatchObject({ sessionId: session.id, status: 'aborted', reason: 'idle-timeout', groupId: 'g' });
    expect(setup.gateway.store.getRollout(session.id)).toMatchObject({ status: 'aborted', endReason: 'idle-timeout' });
  });
});
