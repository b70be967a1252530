import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { computeAdvantages } from '../../../export/compute-advantages.js';
import { computeDatasetStats } from '../../../export/dataset-stats.js';
import { loadHfTokenizer, qwen3TokenizerDir, type HfTokenizer } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSessionReport } from '../../../reconstruct/reconstruct-session.js';
import { openStore, type Store } from '../../../store/index.js';
import { createViewerApp } from '../../../ui/server/index.js';
import type {
  GroupDetail,
  GroupListResponse,
  SampleTokens,
  SessionDetail,
  SessionListResponse,
  ViewerError,
  ViewerSummary,
} from '../../../ui/viewer-api.js';
import { recordViewerFixture, type ViewerFixture } from '../../helpers/record-viewer-fixture.js';

let fixture: ViewerFixture;
let store: Store;
let tokenizer: HfTokenizer;
let app: FastifyInstance;
const routes: Array<{ method: string | string[]; url: string }> = [];

beforeAll(async () => {
  fixture = await recordViewerFixture();
  store = openStore({ path: fixture.dbPath, readonly: true });
  tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
  app = createViewerApp({ store, storeLocation: fixture.dbPath, tokenizer });
  app.addHook('onRoute', (route) => void routes.push({ method: route.method, url: route.url }));
  await app.ready();
}, 60_000);
afterAll(async () => {
  await app?.close();
  store?.close();
  await fixture?.remove();
});

async function get<T>(url: string, status = 200): Promise<T> {
  const response = await app.inject({ method: 'GET', url });
  expect(response.statusCode, `${url}: ${response.body.slice(0, 300)}`).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return response.json() as T;
}

describe('the viewer API on recorded sessions', () => {
  it('summary counts what the store holds', async () => {
    const summary = await get<ViewerSummary>('/ui/api/summary');
    const stats = store.stats();
    expect(summary).toMatchObject({ sessions: stats.sessions, calls: stats.calls, groups: 1, tokenText: true, live: false });
    expect(summary.store).toEqual({ engine: 'sqlite', where: fixture.dbPath });
    expect(summary.callStatuses).toEqual({ ok: stats.calls });
    expect(summary.openSessions).toBe(store.countSessions({ status: 'open' }));
    expect(summary.lastCallAt).toBe(Math.max(...store.listSessions({ limit: 100 }).map((session) => session.lastCallAt ?? 0)));
  });

  it('sessions: every session with its token counts, drift and front doors, newest first; search, group, sort and pages', async () => {
    const all = await get<SessionListResponse>('/ui/api/sessions');
    expect(all.total).toBe(6);
    expect(all.sessions.map((session) => session.id)).toEqual(store.listSessions().map((session) => session.id));
    for (const item of all.sessions) {
      const row = store.getSession(item.id)!;
      expect(item).toMatchObject({
        promptTokens: row.promptTokens,
        completionTokens: row.completionTokens,
        callCount: row.callCount,
        reward: row.reward,
      });
      expect(item.frontDoors).toEqual(['openai-chat']);
      expect(item.models).toContain(fixture.model);
    }
    const edited = all.sessions.find((session) => session.id === fixture.sessions.edited)!;
    expect(edited.drift).toEqual({ 'history-edited': 1 });
    expect(edited.samples).toBe(2);
    expect(all.sessions.find((session) => session.id === fixture.sessions.tools)).toMatchObject({ drift: {}, samples: 1 });

    // a form's empty fields are no filter
    expect((await get<SessionListResponse>('/ui/api/sessions?search=&group=&minReward=&sort=')).total).toBe(6);
    const searched = await get<SessionListResponse>('/ui/api/sessions?search=rollout-');
    expect(searched.total).toBe(4);
    const byGroup = await get<SessionListResponse>(`/ui/api/sessions?search=${fixture.groupId}`);
    expect(byGroup.sessions.map((session) => session.id).sort()).toEqual([...fixture.sessions.group].sort());
    const best = await get<SessionListResponse>(`/ui/api/sessions?group=${fixture.groupId}&sort=reward&order=desc&limit=2&offset=1`);
    expect(best).toMatchObject({ total: 4, offset: 1, limit: 2 });
    expect(best.sessions.map((session) => session.reward)).toEqual([1, 0.5]);
    const rewarded = await get<SessionListResponse>('/ui/api/sessions?minReward=0.5&maxReward=1');
    expect(rewarded.sessions.map((session) => session.reward).sort()).toEqual([0.5, 1, 1]);
    const drifting = await get<SessionListResponse>('/ui/api/sessions?drift=history-edited,retokenized');
    expect(drifting).toMatchObject({ total: 1, sessions: [expect.objectContaining({ id: fixture.sessions.edited })] });
    const none = await get<SessionListResponse>('/ui/api/sessions?drift=template-rerender&limit=1');
    expect(none).toMatchObject({ total: 0, sessions: [] });
    expect((await get<SessionListResponse>('/ui/api/sessions?status=completed')).total).toBe(store.countSessions({ status: 'completed' }));
    expect((await get<SessionListResponse>('/ui/api/sessions?status=open')).total).toBe(store.countSessions({ status: 'open' }));
    expect((await get<SessionListResponse>('/ui/api/sessions?frontDoor=anthropic-messages')).total).toBe(0);
    expect((await get<SessionListResponse>(`/ui/api/sessions?until=${new Date(0).toISOString()}`)).total).toBe(0);
  });

  it('a session: its timeline, the conversation as the harness sent it with the reply, its samples under both strategies', async () => {
    const detail = await get<SessionDetail>(`/ui/api/sessions/${fixture.sessions.tools}`);
    const calls = store.listCalls(fixture.sessions.tools);
    expect(detail.calls.map((call) => [call.id, call.seq, call.promptTokens, call.completionTokens, call.status])).toEqual(
      calls.map((call) => [call.id, call.seq, call.promptTokenIds!.length, call.completionTokenIds!.length, 'ok']),
    );
    expect(detail.calls.every((call) => call.policyVersion === 'v1' && call.stream)).toBe(true);
    expect(detail.session).toMatchObject({ id: fixture.sessions.tools, origin: 'api', metadata: expect.any(Object) });
    const roles = detail.conversation.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    const [system, , firstReply, firstResult, , , last] = detail.conversation;
    expect(system).toMatchObject({ callId: calls[0]!.id, fromResponse: false });
    expect(firstReply!.toolCalls).toEqual([{ id: expect.any(String), name: 'read_file', arguments: expect.any(String) }]);
    expect(JSON.parse(firstReply!.toolCalls[0]!.arguments)).toEqual({ path: 'src/sum.ts' });
    expect(firstReply!.reasoning).toContain('read src/sum.ts');
    expect(firstReply!.callId).toBe(calls[1]!.id);
    expect(firstResult).toMatchObject({ toolCallId: firstReply!.toolCalls[0]!.id, isError: false });
    expect(firstResult!.text).toContain('export function sum');
    expect(last).toMatchObject({ role: 'assistant', fromResponse: true, callId: calls[2]!.id });
    expect(last!.text).toContain('all 12 tests pass');
    expect(detail.samples.merge).toHaveLength(1);
    expect(detail.samples['per-call']).toHaveLength(3);
    for (const summary of [...detail.samples.merge, ...detail.samples['per-call']]) expect(summary.verdict).toEqual({ ok: true });
    expect(detail.samples.merge[0]).toMatchObject({ strategy: 'merge', index: 0, callIds: calls.map((call) => call.id), breaks: [] });
    expect(detail.skipped).toEqual([]);
  });

  it("a break is shown where it falls, in the sample it opens, with both sides' ids and text", async () => {
    const detail = await get<SessionDetail>(`/ui/api/sessions/${fixture.sessions.edited}`);
    const report = reconstructSessionReport(store, fixture.sessions.edited, { strategy: 'merge', tokenizer });
    expect(detail.samples.merge).toHaveLength(2);
    const [brk] = detail.samples.merge[1]!.breaks;
    expect(brk).toMatchObject({ kind: 'history-edited', position: report.drift[0]!.position, callId: report.samples[1]!.callIds[0] });
    expect(brk!.expected.text).toBe(report.drift[0]!.expected.text);
    expect(brk!.actual.text).not.toBeNull();
    const [first, second] = await Promise.all(
      [0, 1].map((index) => get<SampleTokens>(`/ui/api/sessions/${fixture.sessions.edited}/samples/merge/${index}`)),
    );
    // the two samples share every token before the break and part at it
    expect(second!.tokenIds.slice(0, brk!.position)).toEqual(first!.tokenIds.slice(0, brk!.position));
    expect(second!.tokenIds[brk!.position]).not.toBe(first!.tokenIds[brk!.position]);
  });

  it('a sample token by token: ids, mask and logprobs as reconstructed, texts per token, policy bands and call segments', async () => {
    for (const strategy of ['merge', 'per-call'] as const) {
      const report = reconstructSessionReport(store, fixture.sessions.tools, { strategy });
      for (const [index, sample] of report.samples.entries()) {
        const tokens = await get<SampleTokens>(`/ui/api/sessions/${fixture.sessions.tools}/samples/${strategy}/${index}`);
        expect(tokens.tokenIds).toEqual(Array.from(sample.tokens));
        expect(tokens.samples).toBe(report.samples.length);
        expect(tokens.mask).toEqual(Array.from(sample.lossMask));
        expect(tokens.logprobs).toEqual(Array.from(sample.logprobs, (logprob, position) => (sample.lossMask[position] === 1 ? logprob : null)));
        expect(tokens.texts!.join('')).toBe(tokenizer.decode(Array.from(sample.tokens)));
        expect(tokens.summary).toMatchObject({ tokens: sample.tokens.length, trainedTokens: sample.lossMask.reduce((sum, mask) => sum + mask, 0) });
        // bands cover exactly the trained tokens, all of policy v1
        const banded = tokens.policyBands.reduce((sum, band) => sum + band.end - band.start, 0);
        expect(banded).toBe(tokens.summary.trainedTokens);
        expect(new Set(tokens.policyBands.map((band) => band.version))).toEqual(new Set(['v1']));
        // each call adds its new prompt then its completion; the segments tile the sample
        const calls = store.listCalls(fixture.sessions.tools);
        expect(tokens.calls.map((segment) => segment.callId)).toEqual(sample.callIds);
        expect(tokens.calls[0]!.start).toBe(0);
        expect(tokens.calls.at(-1)!.end).toBe(sample.tokens.length);
        for (const [position, segment] of tokens.calls.entries()) {
          const call = calls.find((candidate) => candidate.id === segment.callId)!;
          if (position > 0) expect(segment.start).toBe(tokens.calls[position - 1]!.end);
          expect(segment.completionStart).toBe(call.promptTokenIds!.length);
          expect(tokens.mask.slice(segment.completionStart, segment.end).every((mask) => mask === 1)).toBe(true);
          expect(tokens.mask.slice(segment.start, segment.completionStart).every((mask) => mask === 0)).toBe(true);
        }
      }
    }
  });

  it('a call: its request as sent and its reply', async () => {
    const call = store.listCalls(fixture.sessions.tools)[1]!;
    const detail = await get<{
      call: { id: string; seq: number };
      sessionId: string;
      messages: Array<{ role: string; fromResponse: boolean; callId: string }>;
    }>(`/ui/api/calls/${call.id}`);
    expect(detail).toMatchObject({ call: { id: call.id, seq: 2 }, sessionId: fixture.sessions.tools });
    expect(detail.messages.map((message) => [message.role, message.fromResponse])).toEqual([
      ['system', false],
      ['user', false],
      ['assistant', false],
      ['tool', false],
      ['assistant', true],
    ]);
    expect(detail.messages.every((message) => message.callId === call.id)).toBe(true);
  });

  it('groups: the group with its rewards; a group: its rollouts, advantages (grpo), shared prefix and where each parts', async () => {
    const groups = await get<GroupListResponse>('/ui/api/groups');
    const mean = fixture.rewards.reduce((sum, reward) => sum + reward, 0) / fixture.rewards.length;
    expect(groups.groups).toEqual([{ groupId: fixture.groupId, sessions: 4, rewarded: 4, rewardMean: mean, lastCallAt: expect.any(Number) }]);
    const group = await get<GroupDetail>(`/ui/api/groups/${fixture.groupId}`);
    expect(group.estimator).toBe('grpo');
    expect(group.rollouts.map((rollout) => rollout.session.id)).toEqual(fixture.sessions.group);
    expect(group.rollouts.map((rollout) => rollout.reward)).toEqual(fixture.rewards);
    expect(group.rollouts.map((rollout) => rollout.advantage)).toEqual(computeAdvantages(fixture.rewards));
    const firsts = fixture.sessions.group.map((id) => reconstructSessionReport(store, id, { strategy: 'merge' }).samples[0]!);
    expect(group.rollouts.map((rollout) => rollout.tokens)).toEqual(firsts.map((sample) => sample.tokens.length));
    // every first sample starts with the shared prefix; the odd rollout (the second) leaves it there
    for (const sample of firsts)
      expect(Array.from(sample.tokens.subarray(0, group.sharedPrefix))).toEqual(Array.from(firsts[0]!.tokens.subarray(0, group.sharedPrefix)));
    expect(firsts[1]!.tokens[group.sharedPrefix]).not.toBe(firsts[0]!.tokens[group.sharedPrefix]);
    const odd = group.rollouts[1]!;
    expect(odd.divergesAt).toBe(group.sharedPrefix);
    expect(odd.divergence!.tokenIds[0]).toBe(firsts[1]!.tokens[group.sharedPrefix]);
    expect(odd.divergence!.text).toBe(tokenizer.decode(odd.divergence!.tokenIds));
    // each rollout's closest: the longest prefix it shares with any other, every pair compared here
    const shared = (a: Int32Array, b: Int32Array): number => {
      let index = 0;
      while (index < a.length && index < b.length && a[index] === b[index]) index++;
      return index;
    };
    group.rollouts.forEach((rollout, index) => {
      const others = firsts.map((sample, other) => (other === index ? -1 : shared(firsts[index]!.tokens, sample.tokens)));
      const best = Math.max(...others);
      expect(rollout.closest!.sharedTokens).toBe(best);
      expect(others[fixture.sessions.group.indexOf(rollout.closest!.sessionId)]).toBe(best);
    });
    // the odd one parts from all the others at the shared prefix; the others are closer to one another
    expect(odd.closest!.sharedTokens).toBe(group.sharedPrefix);
    for (const rollout of group.rollouts.filter((_, index) => index !== 1)) expect(rollout.closest!.sharedTokens).toBeGreaterThan(group.sharedPrefix);
  });

  it('stats: the export stats for the selection in the query, with trained tokens per policy version', async () => {
    const stats = await get<Record<string, unknown>>('/ui/api/stats');
    const expected = JSON.parse(JSON.stringify(computeDatasetStats(store, {})));
    expect(stats).toEqual(expected);
    expect(stats.policyVersionTokens).toEqual({ v1: expect.any(Number) });
    const perCall = await get<{ summary: { samples: number } }>(`/ui/api/stats?strategy=per-call&group=${fixture.groupId}`);
    expect(perCall.summary.samples).toBe(
      computeDatasetStats(store, { strategy: 'per-call', filters: { groupIds: [fixture.groupId] } }).summary.samples,
    );
  });

  it('refuses bad input with 400 and unknown things with 404, in one shape', async () => {
    const cases: Array<[string, number, string]> = [
      ['/ui/api/sessions?sort=secret', 400, 'TT_INVALID_REQUEST'],
      ['/ui/api/sessions?limit=501', 400, 'TT_INVALID_REQUEST'],
      ['/ui/api/sessions?drift=sideways', 400, 'TT_INVALID_REQUEST'],
      ['/ui/api/sessions?since=yesterday', 400, 'TT_INVALID_REQUEST'],
      ['/ui/api/sessions?colour=red', 400, 'TT_INVALID_REQUEST'],
      ['/ui/api/stats?colour=red', 400, 'TT_INVALID_REQUEST'],
      ['/ui/api/stats?rewardMin=high', 400, 'TT_INVALID_REQUEST'],
      [`/ui/api/sessions/${fixture.sessions.tools}/samples/sideways/0`, 400, 'TT_INVALID_REQUEST'],
      ['/ui/api/sessions/nobody', 404, 'TT_SESSION_NOT_FOUND'],
      [`/ui/api/sessions/${fixture.sessions.tools}/samples/merge/1`, 404, 'TT_SAMPLE_NOT_FOUND'],
      ['/ui/api/calls/no-such-call', 404, 'TT_CALL_NOT_FOUND'],
      ['/ui/api/groups/no-such-group', 404, 'TT_GROUP_NOT_FOUND'],
      ['/ui/api/nothing-here', 404, 'TT_NOT_FOUND'],
    ];
    for (const [url, status, code] of cases) {
      const body = await get<ViewerError>(url, status);
      expect(body, url).toEqual({ error: { code, message: expect.any(String) } });
    }
    const post = await app.inject({ method: 'POST', url: '/ui/api/sessions', payload: {} });
    expect(post.statusCode).toBe(404);
  });

  it('every API route is a GET and is in the OpenAPI document', async () => {
    const document = await get<{ openapi: string; info: { title: string }; paths: Record<string, Record<string, unknown>> }>('/ui/api/openapi.json');
    expect(document.openapi).toBe('3.0.3');
    // fastify adds a HEAD route beside each GET
    const apiRoutes = routes.filter((route) => route.url.startsWith('/ui/api/') && route.url !== '/ui/api/openapi.json' && route.method !== 'HEAD');
    expect(apiRoutes.length).toBeGreaterThanOrEqual(9);
    for (const route of apiRoutes) {
      expect([route.method].flat(), route.url).toEqual(['GET']);
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      expect(Object.keys(document.paths[path] ?? {}), path).toEqual(['get']);
    }
    for (const route of routes)
      expect(
        [route.method].flat().every((method) => method === 'GET' || method === 'HEAD'),
        route.url,
      ).toBe(true);
  });
});
