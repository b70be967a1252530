import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/index.js';
import { createSimBackend, type SimBackend, type SimGenerationRecord, type SimScript } from '../../sim/index.js';
import { startGatewayProcess, type GatewayProcess } from '../../bench/gateway-process.js';
import { readChatAnswer } from '../../bench/read-chat-answer.js';
import { closedPort } from '../helpers/closed-port.js';
import { startHeldDoor, type HeldDoor } from '../helpers/held-door.js';
import { postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';
import {
  createTempWorkspace,
  engineSuiteName,
  engineUnavailable,
  STORE_ENGINES,
  type StoreEngineName,
  type TempWorkspace,
} from '../store/store-fixtures.js';

/** About 30 tokens: at 5 tokens/s a stream of it lasts six seconds, long enough to start another gateway process in its middle on a loaded 2-core machine (one start took 2.7 s there: at 20 tokens/s the stream had ended). */
const REPLY =
  'This answer is still streaming from the first gateway while a second one starts on the same database file, and it must be recorded in full.';

let workspace: TempWorkspace | undefined;
let sim: SimBackend | undefined;
let door: HeldDoor | undefined;
const gateways: GatewayProcess[] = [];

afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    gateway.child.kill('SIGKILL');
    await gateway.exited;
  }
  door?.release();
  await door?.close();
  await sim?.close();
  workspace?.cleanup();
  [workspace, sim, door] = [undefined, undefined, undefined];
});

/** The simulator, and the test's database (a SQLite file, or a PostgreSQL database of the test run's server). */
async function startSim(
  engine: StoreEngineName,
  options: { tokensPerSecond: number; script: SimScript } = SLOW_REPLY,
): Promise<{ simUrl: string; db: string }> {
  workspace = createTempWorkspace(engine);
  sim = await createSimBackend({ fast: true, acceptAnyModel: true, ...options });
  return { simUrl: await sim.listen(), db: workspace.databasePath };
}

const SLOW_REPLY = { tokensPerSecond: 5, script: { replies: [{ content: REPLY, times: 'forever' as const }] } };

async function startServe(backendUrl: string, db: string, options: { args?: string[]; launcher?: string[] } = {}): Promise<GatewayProcess> {
  const gateway = await startGatewayProcess({
    backendUrl,
    db,
    port: await closedPort(),
    args: ['--shutdown-timeout-ms', '30000', ...(options.args ?? [])],
    launcher: options.launcher,
  });
  gateways.push(gateway);
  return gateway;
}

/** Starts a stream and waits for its first bytes; `rest()` reads it to the end. */
async function startStream(url: string, session: string, content = `hello from ${session}`): Promise<{ callId: string; rest(): Promise<string> }> {
  const response = await fetch(`${url}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', stream: true, messages: [{ role: 'user', content }] }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value, { stream: true });
  return {
    callId: response.headers.get('x-tokentap-call-id')!,
    async rest() {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
      return text;
    },
  };
}

function readCalls(db: string, session: string): ReturnType<ReturnType<typeof openStore>['listCalls']> {
  const store = openStore({ path: db, readonly: true });
  try {
    return store.listCalls(session);
  } finally {
    store.close();
  }
}

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`several gateways on one database, ${engineSuiteName(engine)}`, () => {
    it('a rolling restart: the new gateway starts while the old one drains a stream, and that stream is recorded ok, token-exact', async () => {
      const { simUrl: backendUrl, db } = await startSim(engine);
      const old = await startServe(backendUrl, db);
      const stream = await startStream(old.url, 'rolling');
      old.child.kill('SIGTERM');
      await old.waitForLine('draining');
      // the replacement opens the same file while the old process still streams; it must not take that call for lost
      const replacement = await startServe(backendUrl, db);
      expect(readCalls(db, 'rolling').map((call) => call.status)).toEqual(['in_progress']);
      const text = await stream.rest();
      expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      expect(await old.exited).toEqual({ code: 0, signal: null });
      const next = await startStream(replacement.url, 'rolling');
      await next.rest();
      const calls = readCalls(db, 'rolling');
      expect(calls.map((call) => [call.id, call.seq, call.status])).toEqual([
        [stream.callId, 1, 'ok'],
        [next.callId, 2, 'ok'],
      ]);
      for (const [index, call] of calls.entries()) {
        expect(Array.from(call.promptTokenIds!)).toEqual(sim!.log[index]!.promptTokenIds);
        expect(Array.from(call.completionTokenIds!)).toEqual(sim!.log[index]!.completionTokenIds);
      }
      expect(replacement.lines.some((line) => line.includes('marked incomplete'))).toBe(false);
    }, 60_000);

    it('two gateways serve at once; when one is SIGKILLed, the next to start marks only its call incomplete', async () => {
      const { simUrl: backendUrl, db } = await startSim(engine);
      const first = await startServe(backendUrl, db);
      const second = await startServe(backendUrl, db);
      const onFirst = await startStream(first.url, 'first');
      const onSecond = await startStream(second.url, 'second');
      // a stream's first bytes can come before its in_progress row is committed (PostgreSQL takes a few round trips)
      await waitUntil('both calls are in the store', () => readCalls(db, 'first').length + readCalls(db, 'second').length === 2);
      first.child.kill('SIGKILL');
      await first.exited;
      // a third gateway starts while the second still streams: the dead one's call is recovered, the live one's kept
      const third = await startServe(backendUrl, db);
      const recovery = third.lines.find((line) => line.includes('marked incomplete'));
      expect(JSON.parse(recovery!)).toMatchObject({ calls: 1 });
      expect(readCalls(db, 'first').map((call) => [call.id, call.status])).toEqual([[onFirst.callId, 'incomplete']]);
      expect(readCalls(db, 'second').map((call) => [call.id, call.status])).toEqual([[onSecond.callId, 'in_progress']]);
      expect((await onSecond.rest()).trimEnd().endsWith('data: [DONE]')).toBe(true);
      const [secondCall] = readCalls(db, 'second');
      expect(secondCall!.status).toBe('ok');
      const sent = sim!.log.find((record) => JSON.stringify(record.promptTokenIds) === JSON.stringify(Array.from(secondCall!.promptTokenIds!)));
      expect(Array.from(secondCall!.completionTokenIds!)).toEqual(sent!.completionTokenIds);
      // stopped cleanly, a gateway leaves no row behind; the killed one's row went with the recovery
      for (const gateway of [second, third]) {
        gateway.child.kill('SIGTERM');
        expect(await gateway.exited).toEqual({ code: 0, signal: null });
      }
      gateways.splice(0);
      expect(countInstances()).toBe(0);
    }, 60_000);
  });
}

function countInstances(): number {
  return workspace!.inspect((database) => (database.prepare('SELECT count(*) AS n FROM gateway_instances').get() as { n: number }).n);
}

/**
 * `unshare` puts a gateway in a PID namespace of its own: to gateway-instance.ts another process scope, as a gateway on
 * another host (its pid means nothing here, so only its row's refreshes tell it is alive). `--kill-child`: a SIGKILL of
 * unshare kills the gateway too. Where namespaces cannot be made (an unprivileged container), the fleet suite skips.
 */
const SEPARATE_HOST = ['unshare', '--pid', '--fork', '--kill-child'];
const separateHosts = spawnSync(SEPARATE_HOST[0]!, [...SEPARATE_HOST.slice(1), 'true']).status === 0;
/** a heartbeat of 500 ms: a gateway on another host counts as gone 5 s after its last refresh */
const FLEET_ARGS = ['--instance-heartbeat-ms', '500'];
/** hundreds of tokens at 40 tokens/s: a stream still running when its gateway is killed after its first bytes */
const LONG_REPLY = Array.from({ length: 200 }, (_, index) => `part ${index}`).join(', ');
const FLEET_SCRIPT: SimScript = {
  replies: [
    { match: { lastUserContains: 'long' }, content: LONG_REPLY, times: 'forever' },
    { content: 'A short answer.', times: 'forever' },
  ],
};
/** what the call held at the door says */
const HOLD = 'HOLD-AT-THE-DOOR';

const fleetSkip = !postgresAvailable() || !separateHosts;
const fleetWhy = !postgresAvailable() ? postgresUnavailable() : 'unshare --pid cannot make a PID namespace here';

/** A call answered in full: its call id (x-tokentap-call-id) and the simulator's response id. */
async function fullCall(url: string, session: string, content: string, stream: boolean): Promise<{ callId: string; responseId: string }> {
  const response = await fetch(`${url}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', stream, messages: [{ role: 'user', content }] }),
  });
  expect(response.status).toBe(200);
  const callId = response.headers.get('x-tokentap-call-id')!;
  const answer = await readChatAnswer(response, stream);
  expect(answer).not.toBeNull();
  return { callId, responseId: answer!.responseId };
}

/** Polls `check` until it holds; fails past the deadline. */
async function waitUntil(what: string, check: () => boolean, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(fleetSkip)(
  `a fleet of gateways on separate hosts, one PostgreSQL database (issue 17)${fleetSkip ? ` (skipped: ${fleetWhy})` : ''}`,
  () => {
    it("calls of the same sessions spread over three gateways at once: seq 1..n, each token-exact; a killed host's in-progress call is marked incomplete by another host once its row is stale, a live host's held call kept", async () => {
      const { simUrl, db } = await startSim('postgres', { tokensPerSecond: 40, script: FLEET_SCRIPT });
      const records = new Map<string, SimGenerationRecord>();
      sim!.on('generation', (record) => records.set(record.requestId, record));
      door = await startHeldDoor(simUrl, { holds: (body) => body.includes(HOLD) });
      // one reading connection for the polls (a store opened per poll costs a thread and a connection)
      const reader = workspace!.open({ readonly: true });
      const rows = (session: string) => reader.listCalls(session);
      const hosts = await Promise.all([0, 1, 2].map(() => startServe(door!.url, db, { args: FLEET_ARGS, launcher: SEPARATE_HOST })));
      expect(workspace!.inspect((database) => database.prepare('SELECT count(DISTINCT process_scope) AS n FROM gateway_instances').get())).toEqual({
        n: 3,
      });

      // each session: three turns in order, one per gateway, then six calls at once spread over the three
      const sessions = ['fleet-a', 'fleet-b'];
      const sent = await Promise.all(
        sessions.map(async (session) => {
          const ordered: string[] = [];
          for (const [turn, host] of hosts.entries()) ordered.push((await fullCall(host.url, session, `turn ${turn}`, turn % 2 === 0)).callId);
          const burst = await Promise.all(
            [0, 1, 2, 3, 4, 5].map((index) => fullCall(hosts[index % 3]!.url, session, `burst ${index}`, index % 2 === 0)),
          );
          return { session, ordered, burst: burst.map((call) => call.callId) };
        }),
      );
      const used = new Set<string>();
      for (const { session, ordered, burst } of sent) {
        const calls = rows(session);
        expect(calls.map((call) => call.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
        expect(calls.slice(0, 3).map((call) => call.id)).toEqual(ordered);
        expect(
          calls
            .slice(3)
            .map((call) => call.id)
            .sort(),
        ).toEqual([...burst].sort());
        for (const call of calls) {
          const responseId = (reader.getCallBodies(call.id)?.responseBody as { id?: string } | undefined)?.id;
          const record = records.get(responseId ?? '');
          expect(record, `the simulator's generation of ${call.id}`).toBeDefined();
          expect(used.has(record!.requestId)).toBe(false);
          used.add(record!.requestId);
          expect([call.status, call.tokenSource, call.flags]).toEqual(['ok', 'backend', []]);
          expect(Array.from(call.promptTokenIds!)).toEqual(record!.promptTokenIds);
          expect(Array.from(call.completionTokenIds!)).toEqual(record!.completionTokenIds);
          expect(Array.from(call.completionLogprobs!)).toEqual(record!.logprobs.map((logprob) => Math.fround(logprob)));
        }
        const writers = workspace!.inspect((database) =>
          database.prepare('SELECT count(DISTINCT instance_id) AS n FROM calls WHERE session_id = ?').get(session),
        );
        expect(writers).toEqual({ n: 3 });
      }

      // recovery across hosts: host 0 dies mid-stream while host 1 holds a call of its own at the door
      const held = fetch(`${hosts[1]!.url}/s/live/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: HOLD }] }),
      }).catch((error: unknown) => error as Error);
      await waitUntil('the held call is in progress', () => rows('live').length === 1);
      const cut = await startStream(hosts[0]!.url, 'cut', 'a long answer, please');
      await waitUntil('the stream is in the store', () => rows('cut').length === 1);
      hosts[0]!.child.kill('SIGKILL');
      await hosts[0]!.exited;
      // its row was refreshed less than a heartbeat ago: another host takes it for alive until it is 5 s stale
      expect(rows('cut').map((call) => [call.id, call.status])).toEqual([[cut.callId, 'in_progress']]);
      await waitUntil('another host marks the dead host call incomplete', () => rows('cut')[0]!.status === 'incomplete');
      // one of the two live hosts did it, at a heartbeat (its log line may come a moment after the update)
      let recovery = '';
      await waitUntil('a live host logs the recovery', () => {
        recovery = [hosts[1]!, hosts[2]!].flatMap((host) => host.lines.filter((line) => line.includes('marked incomplete'))).join('');
        return recovery !== '';
      });
      expect(JSON.parse(recovery)).toMatchObject({ calls: 1 });
      expect(rows('live').map((call) => call.status)).toEqual(['in_progress']);
      expect(countInstances()).toBe(2);
      door.release();
      expect(((await held) as Response).status).toBe(200);
      expect(rows('live').map((call) => call.status)).toEqual(['ok']);
      // the session goes on on another host
      await fullCall(hosts[2]!.url, 'cut', 'and now?', false);
      expect(rows('cut').map((call) => [call.seq, call.status])).toEqual([
        [1, 'incomplete'],
        [2, 'ok'],
      ]);
    }, 60_000);
  },
);
