import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { CreatedSession, GroupInfo, SessionInfo } from '../../../gateway/rollouts/rollout-api.js';
import type { RewardRow } from '../../../store/index.js';
import { api, chatBody, postChat, startRolloutGateway } from './rollout-test-helpers.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function createSession(body: Record<string, unknown> = {}): Promise<CreatedSession> {
  return (await api<CreatedSession>(setup as GatewayWithSim, 'POST', '/sessions', { body })).body;
}

describe('rewards over HTTP', () => {
  it('takes a scalar, named components (summed) and call rewards; the newest wins and the history is kept', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'ok' }] } });
    const { session, apiKey, baseUrls } = await createSession();
    await postChat(baseUrls.openai, apiKey, chatBody('one'));
    await postChat(baseUrls.openai, apiKey, chatBody('two'));
    const [first, second] = setup.gateway.store.listCalls(session.id).map((call) => call.id);
    const path = `/sessions/${session.id}/reward`;
    expect((await api<RewardRow>(setup, 'POST', path, { body: { value: 0 } })).body).toMatchObject({ value: 0, components: null, source: 'admin' });
    expect((await api<RewardRow>(setup, 'POST', path, { body: { components: { correct: 1, style: 0.5 } }, credential: apiKey })).body).toMatchObject({
      value: 1.5,
      components: { correct: 1, style: 0.5 },
      source: 'session-key',
    });
    await api(setup, 'POST', path, { body: { value: 0.25, callId: second } });
    await api(setup, 'POST', path, { body: { value: -1, components: { format: 0 }, callId: first } });
    expect((await api(setup, 'GET', `/sessions/${session.id}`, { credential: apiKey })).status).toBe(403);
    expect((await api(setup, 'GET', `/sessions/${session.id}/rewards`, { credential: apiKey })).status).toBe(403);
    const info = (await api<SessionInfo>(setup, 'GET', `/sessions/${session.id}`)).body;
    expect(info.reward).toMatchObject({ value: 1.5, callId: null });
    expect(info.callRewards.map((reward) => [reward.callId, reward.value])).toEqual([
      [first, -1],
      [second, 0.25],
    ]);
    const history = (await api<{ rewards: RewardRow[] }>(setup, 'GET', `/sessions/${session.id}/rewards`)).body.rewards;
    expect(history.map((reward) => reward.value)).toEqual([0, 1.5, 0.25, -1]);
  });

  it('posting the same reward twice keeps both in the history and the reward unchanged', async () => {
    setup = await startRolloutGateway();
    const { session } = await createSession();
    for (let attempt = 0; attempt < 2; attempt++)
      expect((await api(setup, 'POST', `/sessions/${session.id}/reward`, { body: { value: 1 } })).status).toBe(201);
    expect((await api<SessionInfo>(setup, 'GET', `/sessions/${session.id}`)).body.reward?.value).toBe(1);
    expect(setup.gateway.store.listRewards(session.id, { history: true })).toHaveLength(2);
  });

  it('refuses a missing call, an unknown session, another session key, bad JSON and empty rewards, storing nothing', async () => {
    setup = await startRolloutGateway();
    const mine = await createSession({ id: 'mine' });
    await createSession({ id: 'theirs' });
    const cases: Array<[string, unknown, string | undefined, number, string]> = [
      ['/sessions/mine/reward', { value: 1, callId: 'no-such-call' }, undefined, 404, 'TT_CALL_NOT_FOUND'],
      ['/sessions/nope/reward', { value: 1 }, undefined, 404, 'TT_SESSION_NOT_FOUND'],
      ['/sessions/theirs/reward', { value: 1 }, mine.apiKey, 403, 'TT_FORBIDDEN'],
      ['/sessions/mine/reward', '{"value": 1', undefined, 400, 'TT_INVALID_REQUEST'],
      ['/sessions/mine/reward', {}, undefined, 400, 'TT_INVALID_REQUEST'],
      ['/sessions/mine/reward', { value: '1' }, undefined, 400, 'TT_INVALID_REQUEST'],
      ['/sessions/mine/reward', { components: { correct: 'yes' } }, undefined, 400, 'TT_INVALID_REQUEST'],
    ];
    for (const [path, body, credential, status, code] of cases) {
      const answer = await api<{ error: { code: string } }>(setup, 'POST', path, { body, ...(credential === undefined ? {} : { credential }) });
      expect([path, answer.status, answer.body.error.code]).toEqual([path, status, code]);
    }
    expect(setup.gateway.store.listRewards('mine', { history: true })).toEqual([]);
    expect(setup.gateway.store.listRewards('theirs', { history: true })).toEqual([]);
  });

  it('refuses components that sum to Infinity (issue 12) and numbers beyond ±1e30 with 400 naming the field, storing nothing', async () => {
    setup = await startRolloutGateway();
    const { session, apiKey } = await createSession({ id: 'mine' });
    const cases: Array<[string, string]> = [
      // the attack: each component finite, the sum Infinity; posted with the session's own key
      ['{"components":{"a":1.7e308,"b":1.7e308}}', 'components'],
      ['{"value":1,"components":{"a":1.7e308,"b":1.7e308}}', 'components'],
      ['{"components":{"a":6e29,"b":6e29}}', 'components'],
      ['{"value":1.7e308}', 'value'],
      ['{"value":-1e31}', 'value'],
      ['{"components":{"ok":1,"huge":-1e300}}', 'components.huge'],
    ];
    for (const [body, field] of cases) {
      const answer = await api<{ error: { code: string; message: string } }>(setup, 'POST', `/sessions/${session.id}/reward`, {
        body,
        credential: apiKey,
      });
      expect([body, answer.status, answer.body.error.code]).toEqual([body, 400, 'TT_INVALID_REQUEST']);
      expect(answer.body.error.message, body).toContain(`at ${field}`);
    }
    expect(setup.gateway.store.listRewards(session.id, { history: true })).toEqual([]);
    const edge = await api<RewardRow>(setup, 'POST', `/sessions/${session.id}/reward`, {
      body: { components: { a: 5e29, b: 5e29 } },
      credential: apiKey,
    });
    expect([edge.status, edge.body.value]).toEqual([201, 1e30]);
  });
});

describe('groups over HTTP', () => {
  it('is complete once its declared size of sessions have ended; a long poll answers at that moment', async () => {
    setup = await startRolloutGateway();
    const declared = await api<GroupInfo>(setup, 'POST', '/groups', { body: { id: 'task-7', expectedSize: 2, metadata: { prompt: 'add' } } });
    expect([declared.status, declared.body]).toMatchObject([201, { id: 'task-7', expectedSize: 2, complete: false, sessions: [] }]);
    const first = await createSession({ groupId: 'task-7' });
    const second = await createSession({ groupId: 'task-7' });
    await api(setup, 'POST', `/sessions/${first.session.id}/reward`, { body: { value: 1 } });
    await api(setup, 'POST', `/sessions/${first.session.id}/end`, { body: {} });
    const polling = api<GroupInfo>(setup, 'GET', '/groups/task-7?waitMs=20000');
    expect((await api<GroupInfo>(setup, 'GET', '/groups/task-7')).body.complete).toBe(false);
    await api(setup, 'POST', `/sessions/${second.session.id}/end`, { body: { status: 'failed' }, credential: second.apiKey });
    const group = (await polling).body;
    expect(group).toMatchObject({ complete: true, metadata: { prompt: 'add' } });
    expect(group.sessions).toEqual([
      { id: first.session.id, status: 'completed', reward: 1 },
      { id: second.session.id, status: 'failed', reward: null },
    ]);
  });

  it('a long poll of an incomplete group answers it as it is after waitMs', async () => {
    setup = await startRolloutGateway();
    await api(setup, 'POST', '/groups', { body: { id: 'g', expectedSize: 3 } });
    expect((await api<GroupInfo>(setup, 'GET', '/groups/g?waitMs=20')).body).toMatchObject({ id: 'g', complete: false });
  });

  it('declaring again with the same size is safe, another size is 409; unknown groups 404; admin only', async () => {
    setup = await startRolloutGateway();
    const { apiKey } = await createSession();
    expect((await api(setup, 'POST', '/groups', { body: { id: 'g', expectedSize: 2 } })).status).toBe(201);
    expect((await api(setup, 'POST', '/groups', { body: { id: 'g', expectedSize: 2 } })).status).toBe(201);
    expect((await api(setup, 'POST', '/groups', { body: { id: 'g', expectedSize: 3 } })).body).toMatchObject({
      error: { code: 'TT_GROUP_CONFLICT' },
    });
    expect((await api(setup, 'POST', '/groups', { body: { id: 'g', expectedSize: 0 } })).status).toBe(400);
    expect((await api(setup, 'GET', '/groups/nope')).body).toMatchObject({ error: { code: 'TT_GROUP_NOT_FOUND' } });
    expect((await api(setup, 'GET', '/groups/g', { credential: apiKey })).status).toBe(403);
    expect(setup.gateway.store.getGroup('g')?.expectedSize).toBe(2);
  });
});

describe('policy versions over HTTP', () => {
  it('every call records the version it was served under', async () => {
    setup = await startRolloutGateway({ script: { replies: [{ times: 'forever', content: 'ok' }] } });
    const { session, apiKey, baseUrls } = await createSession();
    await postChat(baseUrls.openai, apiKey, chatBody('before any version'));
    expect((await api(setup, 'PUT', '/policy-version', { body: { version: 'step-1' } })).body).toMatchObject({ version: 'step-1' });
    await postChat(baseUrls.openai, apiKey, chatBody('one'));
    await api(setup, 'PUT', '/policy-version', { body: { version: 'step-2' } });
    await postChat(baseUrls.openai, apiKey, chatBody('two'));
    expect(setup.gateway.store.listCalls(session.id).map((call) => call.policyVersion)).toEqual([null, 'step-1', 'step-2']);
    expect((await api(setup, 'GET', '/policy-version')).body).toMatchObject({ version: 'step-2' });
    expect((await api(setup, 'PUT', '/policy-version', { body: { version: '' } })).status).toBe(400);
    expect((await api(setup, 'PUT', '/policy-version', { body: { version: 'x' }, credential: apiKey })).status).toBe(403);
    expect((await api(setup, 'GET', '/state')).body).toMatchObject({ policyVersion: 'step-2' });
  });
});
