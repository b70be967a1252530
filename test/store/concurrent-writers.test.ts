import { describe, expect, it } from 'vitest';
import { outputLines, runStoreProcesses } from './run-store-processes.js';
import { engineSuiteName, engineUnavailable, STORE_ENGINES, workspaceForEachTest } from './store-fixtures.js';

const WRITERS = 4;
const CALLS_PER_WRITER = 15;

/** What a writer process says it wrote, one line per call. */
interface WrittenCall {
  callId: string;
  seq: number;
  prompt: number[];
  completion: number[];
}

/**
 * One gateway's share of a session: each call's prompt is a system prompt every writer shares, then the writer's own
 * growing line (its previous prompt, completion and a new id), so a prompt's delta parent may be another writer's call.
 * Ids reach both ends of the Int32 range a token id may take.
 */
const WRITER_SCRIPT = `
const [path, writerText, countText] = args;
const writer = Number(writerText);
const opened = store.openStore({ path });
const shared = Array.from({ length: 40 }, (_, index) => index * 7);
let line = [2147483647 - writer];
await ready();
for (let index = 0; index < Number(countText); index++) {
  const prompt = [...shared, ...line];
  const completion = [writer * 100000 + index, 0, 151645];
  const { callId, seq } = opened.beginCall({
    sessionId: 'shared', frontDoor: 'openai-chat', path: '/v1/chat/completions', requestedModel: 'm', backendModel: 'm',
    stream: true, samplingParams: {}, metadata: { writer }, startedAt: index, policyVersion: null,
    requestBody: { messages: [{ role: 'user', content: 'writer ' + writer + ' turn ' + index }] }, backendRequestBody: {},
  });
  opened.finishCall(callId, {
    status: 'ok', tokenSource: 'backend', promptTokenIds: prompt, completionTokenIds: completion,
    completionLogprobs: [-0.5, -1, -0.25], finishReason: 'stop', stopReason: null, responseBody: { writer, index },
    responseStream: null, usage: null, error: null, httpStatus: 200, flags: [], timeToFirstTokenMs: 1, totalMs: 2, endedAt: index,
  });
  console.log(JSON.stringify({ callId, seq, prompt, completion }));
  line = [...line, ...completion, writer * 1000 + index];
}
opened.close();
`;

/**
 * One gateway's calls of its own session, whose bodies are every other writer's: the same system prompt, tools and
 * growing history, written at once, so the writers store the same blobs and list cells at the same moment.
 */
const BODY_WRITER_SCRIPT = `
const [path, writer, countText] = args;
const opened = store.openStore({ path });
const tools = [{ type: 'function', function: { name: 'run', description: 'runs a command '.repeat(40), parameters: {} } }];
const messages = [{ role: 'system', content: 'Shared rules. '.repeat(100) }];
await ready();
for (let index = 0; index < Number(countText); index++) {
  messages.push({ role: 'user', content: 'turn ' + index });
  const requestBody = { model: 'm', messages, tools };
  const { callId } = opened.beginCall({
    sessionId: 'bodies-' + writer, frontDoor: 'openai-chat', path: '/v1/chat/completions', requestedModel: 'm', backendModel: 'm',
    stream: true, samplingParams: {}, metadata: {}, startedAt: index, policyVersion: null, requestBody, backendRequestBody: requestBody,
  });
  console.log(JSON.stringify({ callId, messages: messages.length }));
  messages.push({ role: 'assistant', content: 'answer ' + index });
}
opened.close();
`;

const GROUPS = 24;

/** One gateway ending its own rollout of each group, all groups in turn: it prints the groups whose end it completed. */
const ENDER_SCRIPT = `
const [path, writer, groupsText] = args;
const opened = store.openStore({ path });
await ready();
for (let group = 0; group < Number(groupsText); group++) {
  const { completedGroup } = opened.endSession('g' + group + '-' + writer, { status: 'completed', reason: 'explicit', endedAt: 100 + group });
  if (completedGroup !== null) console.log(JSON.stringify({ groupId: completedGroup.id, ended: completedGroup.sessions.map((session) => session.status) }));
}
opened.close();
`;

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: concurrent writers`, () => {
    const workspace = workspaceForEachTest(engine);

    it('gateway processes writing calls of one session at once give each call its own seq, 1..N without a gap, and its ids back bit-identical', async () => {
      workspace.open().close(); // SQLite: the file exists, migrated, before the writers race
      const results = await runStoreProcesses(
        workspace.dir,
        WRITER_SCRIPT,
        Array.from({ length: WRITERS }, (_, writer) => [workspace.databasePath, String(writer), String(CALLS_PER_WRITER)]),
      );
      expect(results.map((result) => [result.code, result.stderr])).toEqual(results.map(() => [0, '']));
      const written = results.flatMap((result) => outputLines<WrittenCall>(result));
      expect(written).toHaveLength(WRITERS * CALLS_PER_WRITER);
      expect(written.map((call) => call.seq).sort((left, right) => left - right)).toEqual(
        Array.from({ length: written.length }, (_, index) => index + 1),
      );

      const store = workspace.open({ readonly: true });
      const bySeq = [...written].sort((left, right) => left.seq - right.seq);
      const listed = store.listCalls('shared');
      expect(listed.map((call) => [call.id, call.seq])).toEqual(bySeq.map((call) => [call.callId, call.seq]));
      const ids = (call: { promptTokenIds: Int32Array | null; completionTokenIds: Int32Array | null } | null) => [
        Array.from(call?.promptTokenIds ?? []),
        Array.from(call?.completionTokenIds ?? []),
      ];
      expect(listed.map(ids)).toEqual(bySeq.map((call) => [call.prompt, call.completion]));
      // one by one too, from a store that never saw the writes (no cached sequences: each prompt rebuilt from its delta)
      const cold = workspace.open({ readonly: true });
      expect(bySeq.map((call) => ids(cold.getCall(call.callId)))).toEqual(bySeq.map((call) => [call.prompt, call.completion]));
      expect(store.getSession('shared')).toMatchObject({ callCount: WRITERS * CALLS_PER_WRITER, statusCounts: { ok: WRITERS * CALLS_PER_WRITER } });
    });

    it('gateway processes storing the same bodies at once each read theirs back whole, and every blob and list cell is stored once', async () => {
      workspace.open().close();
      const results = await runStoreProcesses(
        workspace.dir,
        BODY_WRITER_SCRIPT,
        Array.from({ length: WRITERS }, (_, writer) => [workspace.databasePath, String(writer), String(CALLS_PER_WRITER)]),
      );
      expect(results.map((result) => [result.code, result.stderr])).toEqual(results.map(() => [0, '']));
      const written = results.flatMap((result) => outputLines<{ callId: string; messages: number }>(result));
      expect(written).toHaveLength(WRITERS * CALLS_PER_WRITER);
      const store = workspace.open({ readonly: true });
      for (const { callId, messages } of written) {
        const body = store.getCallBodies(callId)?.requestBody as { messages: Array<{ content: string }>; tools: unknown[] };
        expect(body.messages.map((message) => message.content.slice(0, 14))).toEqual([
          'Shared rules. ',
          ...Array.from({ length: messages - 1 }, (_, index) => (index % 2 === 0 ? `turn ${index / 2}` : `answer ${(index - 1) / 2}`)),
        ]);
        expect(body.tools).toHaveLength(1);
      }
      const rows = (table: string): number =>
        workspace.inspect((database) => (database.prepare(`SELECT count(*) AS count FROM ${table}`).get() as { count: number }).count);
      // the system prompt, the tools, each turn and each answer but the last; one cell per prefix of the longest history
      expect(rows('blobs')).toBe(2 + CALLS_PER_WRITER + (CALLS_PER_WRITER - 1));
      expect(rows('blob_lists')).toBe(1 + CALLS_PER_WRITER + (CALLS_PER_WRITER - 1));
    });

    it('gateway processes ending the rollouts of the same groups at once complete each group exactly once, when its last rollout ends', async () => {
      const store = workspace.open();
      for (let group = 0; group < GROUPS; group++) {
        store.declareGroup({ groupId: `g${group}`, expectedSize: WRITERS, createdAt: 1 });
        for (let writer = 0; writer < WRITERS; writer++)
          store.createRollout({ sessionId: `g${group}-${writer}`, groupId: `g${group}`, createdAt: 1 });
      }
      const results = await runStoreProcesses(
        workspace.dir,
        ENDER_SCRIPT,
        Array.from({ length: WRITERS }, (_, writer) => [workspace.databasePath, String(writer), String(GROUPS)]),
      );
      expect(results.map((result) => [result.code, result.stderr])).toEqual(results.map(() => [0, '']));
      const completions = results.flatMap((result) => outputLines<{ groupId: string; ended: string[] }>(result));
      expect(completions.map((completion) => completion.groupId).sort()).toEqual(Array.from({ length: GROUPS }, (_, group) => `g${group}`).sort());
      for (const completion of completions) expect(completion.ended).toEqual(Array<string>(WRITERS).fill('completed'));
      expect(store.listServableGroups({ limit: GROUPS * 2 })).toHaveLength(GROUPS);
    });
  });
}
