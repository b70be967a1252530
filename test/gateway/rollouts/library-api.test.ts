import { afterEach, describe, expect, it, vi } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import {
  connectGateway,
  createGateway,
  isTokentapError,
  type CallEndEvent,
  type ConnectedGateway,
  type GroupCompleteEvent,
  type SessionEndEvent,
} from '../../../index.js';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { ADMIN_TOKEN, startRolloutGateway } from './rollout-test-helpers.js';

const SCRIPT = { replies: [{ times: 'forever' as const, content: 'four' }] };

let setup: GatewayWithSim | undefined;
let remote: ConnectedGateway | undefined;
afterEach(async () => {
  remote?.close();
  remote = undefined;
  await setup?.close();
  setup = undefined;
});

async function ask(client: OpenAI): Promise<string | null | undefined> {
  const answer = await client.chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'add 2 and 2' }] });
  return answer.choices[0]?.message.content;
}

describe('createGateway: the rollout API in-process', () => {
  it('createSession gives what the openai and anthropic clients need; rewards, end and events follow', async () => {
    setup = await startRolloutGateway({ script: SCRIPT });
    const { gateway } = setup;
    const events: { calls: CallEndEvent[]; ends: SessionEndEvent[]; groups: GroupCompleteEvent[] } = { calls: [], ends: [], groups: [] };
    gateway.on('call-end', (event) => events.calls.push(event));
    const offEnd = gateway.on('session-end', (event) => events.ends.push(event));
    gateway.on('group-complete', (event) => events.groups.push(event));
    await gateway.declareGroup('task-7', { expectedSize: 2 });
    const first = await gateway.createSession({ groupId: 'task-7', split: 'train', tags: ['math'] });
    const second = await gateway.createSession({ groupId: 'task-7' });
    expect(first.openai).toEqual({ baseURL: `${setup.url}/s/${first.id}/v1`, apiKey: first.apiKey });
    expect(first.anthropic).toEqual({ baseURL: `${setup.url}/s/${first.id}`, apiKey: first.apiKey });
    expect(first.env).toEqual({
      OPENAI_BASE_URL: first.openai.baseURL,
      OPENAI_API_KEY: first.apiKey,
      ANTHROPIC_BASE_URL: first.anthropic.baseURL,
      ANTHROPIC_API_KEY: first.apiKey,
    });

    expect(await ask(new OpenAI({ ...first.openai, maxRetries: 0 }))).toBe('four');
    const message = await new Anthropic({ ...second.anthropic, maxRetries: 0 }).messages.create({
      model: 'm',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'add 2 and 2' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'four' });
    expect(events.calls.map((event) => [event.sessionId, event.status, event.groupId, event.seq])).toEqual([
      [first.id, 'ok', 'task-7', 1],
      [second.id, 'ok', 'task-7', 1],
    ]);
    expect(events.calls[0]?.call?.completionTokenIds?.length).toBe(events.calls[0]?.completionTokens);

    const waiting = gateway.waitForGroup('task-7');
    expect(await first.reward(1)).toMatchObject({ value: 1, source: 'library' });
    expect(await second.reward({ correct: 0, style: 0.5 })).toMatchObject({ value: 0.5, components: { correct: 0, style: 0.5 } });
    const callId = events.calls[1]?.callId as string;
    await second.reward(0.1, { callId });
    await first.end();
    expect((await first.info()).status).toBe('completed');
    offEnd();
    await second.end('truncated');
    const group = await waiting;
    expect(group).toMatchObject({
      id: 'task-7',
      complete: true,
      sessions: [
        { id: first.id, status: 'completed', reward: 1 },
        { id: second.id, status: 'truncated', reward: 0.5 },
      ],
    });
    expect(events.ends.map((event) => [event.sessionId, event.status, event.reason])).toEqual([[first.id, 'completed', 'explicit']]);
    expect(events.groups.map((event) => event.groupId)).toEqual(['task-7']);
    expect(await gateway.waitForGroup('task-7')).toMatchObject({ complete: true });
    expect((await second.info()).callRewards).toMatchObject([{ callId, value: 0.1 }]);
    expect(await gateway.rewardHistory(second.id)).toHaveLength(2);
  });

  it('throws TokentapErrors for what the HTTP API answers 4xx, changing nothing', async () => {
    setup = await startRolloutGateway();
    const { gateway } = setup;
    const session = await gateway.createSession({ id: 'once' });
    const codeOf = async (work: () => Promise<unknown>): Promise<string> =>
      work().then(
        () => 'no error',
        (error: unknown) => (isTokentapError(error) ? error.code : String(error)),
      );
    expect(await codeOf(() => gateway.createSession({ id: 'once' }))).toBe('TT_SESSION_EXISTS');
    expect(await codeOf(() => gateway.createSession({ split: 'holdout' as 'train' }))).toBe('TT_INVALID_REQUEST');
    expect(await codeOf(() => session.reward(1, { callId: 'missing' }))).toBe('TT_CALL_NOT_FOUND');
    expect(await codeOf(() => gateway.reward('nope', 1))).toBe('TT_SESSION_NOT_FOUND');
    expect(await codeOf(() => gateway.waitForGroup('nope'))).toBe('TT_GROUP_NOT_FOUND');
    await session.end('failed');
    expect(await codeOf(() => session.end('completed'))).toBe('TT_SESSION_ENDED');
    expect(await session.info()).toMatchObject({ status: 'failed', reward: null });
  });

  it('refuses a reward whose components sum past ±1e30 or that is not finite, as TT_INVALID_REQUEST naming the field, storing nothing', async () => {
    setup = await startRolloutGateway();
    const { gateway } = setup;
    const session = await gateway.createSession({ id: 'huge' });
    const refusal = async (work: () => Promise<unknown>): Promise<[string, unknown]> =>
      work().then(
        () => ['no error', null],
        (error: unknown) => (isTokentapError(error) ? [error.code, error.param] : [String(error), null]),
      );
    expect(await refusal(() => session.reward({ a: 1.7e308, b: 1.7e308 }))).toEqual(['TT_INVALID_REQUEST', 'components.a']);
    expect(await refusal(() => session.reward({ a: 9e29, b: 9e29 }))).toEqual(['TT_INVALID_REQUEST', 'components']);
    expect(await refusal(() => session.reward({ a: 9e29, b: 9e29 }, { value: 1 }))).toEqual(['TT_INVALID_REQUEST', 'components']);
    expect(await refusal(() => session.reward(Infinity))).toEqual(['TT_INVALID_REQUEST', 'value']);
    expect(await refusal(() => gateway.reward('huge', Number.NaN))).toEqual(['TT_INVALID_REQUEST', 'value']);
    expect(await refusal(() => gateway.reward('huge', 1, { value: -1e31 }))).toEqual(['TT_INVALID_REQUEST', 'value']);
    expect(await gateway.rewardHistory('huge')).toEqual([]);
  });

  it('app never listens until listen(): the rollout API works through app.inject()', async () => {
    const temp = makeTempDir();
    const gateway = createGateway({ db: temp.file('t.db'), adminToken: ADMIN_TOKEN, logLevel: 'silent', port: 0 });
    try {
      expect(gateway.app.server.listening).toBe(false);
      const answer = await gateway.app.inject({
        method: 'POST',
        url: '/tokentap/v1/sessions',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        payload: { id: 'injected' },
      });
      expect(answer.statusCode).toBe(201);
      expect(answer.json()).toMatchObject({ session: { id: 'injected' }, baseUrls: { openai: 'http://localhost:80/s/injected/v1' } });
      expect((await gateway.getSession('injected')).origin).toBe('api');
    } finally {
      await gateway.close();
      temp.remove();
    }
  });

  it('pause({ drain }) resolves once the in-flight stream has finished; held calls run after resume', async () => {
    setup = await startRolloutGateway({
      tokensPerSecond: 60,
      script: { replies: [{ times: 'forever', content: 'A slow answer that streams for a while before it is done.' }] },
    });
    const { gateway } = setup;
    const session = await gateway.createSession();
    const client = new OpenAI({ ...session.openai, maxRetries: 0 });
    const started = new Promise((resolve) => setup?.sim.on('generation', resolve));
    const running = client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }], stream: true }).then(async (stream) => {
      for await (const _chunk of stream) {
        /* read to the end */
      }
    });
    await started;
    const drained = await gateway.pause({ drain: true });
    expect(drained).toMatchObject({ paused: true, drained: true, inFlight: { count: 0 } });
    await running;
    const held = ask(client);
    await vi.waitFor(async () => expect((await gateway.state()).held).toBe(1), { timeout: 10_000 });
    await gateway.setPolicyVersion('after-sync');
    await gateway.resume();
    await held;
    expect(setup.gateway.store.listCalls(session.id).map((call) => [call.status, call.policyVersion])).toEqual([
      ['ok', null],
      ['ok', 'after-sync'],
    ]);
  });
});

describe('connectGateway: the same API over HTTP', () => {
  it('creates sessions, rewards and ends them with their own key, waits for the group and streams events', async () => {
    setup = await startRolloutGateway({ script: SCRIPT });
    remote = connectGateway(setup.url, { adminToken: ADMIN_TOKEN });
    const ends: SessionEndEvent[] = [];
    const calls: CallEndEvent[] = [];
    remote.on('session-end', (event) => ends.push(event));
    remote.on('call-end', (event) => calls.push(event));
    await remote.eventsReady();
    await remote.declareGroup('g', { expectedSize: 2 });
    const sessions = await Promise.all([
      remote.createSession({ groupId: 'g', sampling: { temperature: 1 } }),
      remote.createSession({ groupId: 'g' }),
    ]);
    for (const session of sessions) expect(await ask(new OpenAI({ ...session.openai, maxRetries: 0 }))).toBe('four');
    const waiting = remote.waitForGroup('g');
    await sessions[0]?.reward({ correct: 1 });
    await sessions[1]?.reward(0);
    await Promise.all(sessions.map((session) => session.end()));
    const group = await waiting;
    expect(group.sessions.map((session) => session.reward)).toEqual([1, 0]);
    expect((await remote.getSession(sessions[0]?.id as string)).sampling).toEqual({ temperature: 1 });
    expect((await remote.rewardHistory(sessions[0]?.id as string))[0]).toMatchObject({ source: 'session-key', components: { correct: 1 } });
    await expect.poll(() => ends.length).toBe(2);
    expect(new Set(ends.map((event) => event.sessionId))).toEqual(new Set(sessions.map((session) => session.id)));
    expect(calls.map((event) => event.status)).toEqual(['ok', 'ok']);
    expect(calls[0]).not.toHaveProperty('call');
  });

  it('pauses, reports and resumes; sets the policy version; errors carry the gateway code', async () => {
    setup = await startRolloutGateway({ script: SCRIPT });
    remote = connectGateway(setup.url, { adminToken: ADMIN_TOKEN });
    expect(await remote.pause({ mode: 'reject', drain: true })).toMatchObject({ paused: true, pauseMode: 'reject', drained: true });
    expect(await remote.setPolicyVersion('v9')).toMatchObject({ version: 'v9' });
    expect(await remote.state()).toMatchObject({ paused: true, policyVersion: 'v9' });
    expect(await remote.resume()).toMatchObject({ paused: false });
    const error = await remote.getSession('nope').catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'TT_SESSION_NOT_FOUND', status: 404 });
    const anonymous = connectGateway(setup.url);
    expect(await anonymous.state().catch((thrown: unknown) => thrown)).toMatchObject({ code: 'TT_UNAUTHORIZED', status: 401 });
  });
});
