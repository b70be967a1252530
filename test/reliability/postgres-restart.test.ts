import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startGatewayProcess, type GatewayProcess } from '../../bench/gateway-process.js';
import { ClientLedger, GatewayGate, runChatSession } from '../../bench/kill-recovery-client.js';
import { readChatAnswer } from '../../bench/read-chat-answer.js';
import { verifyRecoveredStore } from '../../bench/verify-recovered-store.js';
import { createSimBackend, type SimBackend, type SimGenerationRecord } from '../../sim/index.js';
import { createSeededRandom } from '../../sim/seeded-random.js';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import { sampleValue } from '../gateway/metrics/metric-value.js';
import { startHeldDoor, type HeldDoor } from '../helpers/held-door.js';
import { startOwnPostgresServer, type OwnPostgresServer } from '../helpers/own-postgres-server.js';
import { postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';

/**
 * PostgreSQL itself restarted under load (issue 17, must-have 4; docs/reliability.md promise 8): a server of the test's
 * own (scripts/start-postgres.sh), stopped with a fast shutdown while two `tokentap serve` processes record into it,
 * one under `recordFailure: refuse` (the default) carrying three client sessions, one under `serve`. A call of each is
 * held at a door in front of the simulator until the server is down, so its `in_progress` row is committed and its end
 * is not.
 */

const MODEL = 'Qwen/Qwen3-8B';
/** what the held calls say: only they wait at the door */
const HOLD = 'HOLD-AT-THE-DOOR';
const ADMIN_TOKEN = 'restart-admin-token';
const LOAD_SESSIONS = ['pg-restart-0', 'pg-restart-1', 'pg-restart-2'];
/** the codes a PostgreSQL that went away fails with (store-failure-kinds.ts) */
const DATABASE_AWAY = /^(ECONNREFUSED|ECONNRESET|PG_CONNECTION_LOST|57P0[1-3]|08...)$/;

let server: OwnPostgresServer | undefined;
let sim: SimBackend | undefined;
let door: HeldDoor | undefined;
let reader: Store | undefined;
const gateways: GatewayProcess[] = [];

afterEach(async () => {
  for (const gateway of gateways.splice(0)) {
    gateway.child.kill('SIGKILL');
    await gateway.exited;
  }
  door?.release();
  await door?.close();
  await sim?.close();
  reader?.close();
  server?.remove();
  [server, sim, door, reader] = [undefined, undefined, undefined, undefined];
});

type Health = { status: string; recording: { failing: boolean; endsWaiting: number; lastFailure: { code: string | null } | null } };

async function health(gateway: GatewayProcess): Promise<Health> {
  return (await (await fetch(`${gateway.url}/healthz`)).json()) as Health;
}

function chat(gateway: GatewayProcess, session: string, stream: boolean, content = 'hello'): Promise<Response> {
  return fetch(`${gateway.url}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream, messages: [{ role: 'user', content }] }),
  });
}

/** Polls `check` until it holds; fails past the deadline. */
async function waitUntil(what: string, check: () => boolean | Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function statuses(session: string): string[] {
  return reader!.listCalls(session).map((call) => call.status);
}

describe.skipIf(!postgresAvailable())(`PostgreSQL restarted under load${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`, () => {
  it('down: calls are refused with 503 TT_RECORDING_FAILED, the rollout API answers 503 TT_STORE_UNAVAILABLE, /healthz and /metrics report it; back: recording resumes by itself, held ends are written, no acknowledged call is lost or half-written', async () => {
    server = startOwnPostgresServer();
    const db = server.createDatabase('tokentap');
    sim = await createSimBackend({ fast: true, acceptAnyModel: true, seed: 17, tokensPerSecond: 150, maxModelLen: 10_000_000 });
    const simRecords = new Map<string, SimGenerationRecord>();
    sim.on('generation', (record) => simRecords.set(record.requestId, record));
    door = await startHeldDoor(await sim.listen(), { holds: (body) => body.includes(HOLD) });
    const refusing = await startGatewayProcess({ backendUrl: door.url, db, port: await freePort(), args: ['--admin-token', ADMIN_TOKEN] });
    gateways.push(refusing);
    const serving = await startGatewayProcess({
      backendUrl: door.url,
      db,
      port: await freePort(),
      args: ['--record-failure', 'serve', '--admin-token', ADMIN_TOKEN],
    });
    gateways.push(serving);
    reader = openStore({ path: db, readonly: true });

    // three sessions of multi-turn calls on the refusing gateway, across the whole restart
    const gate = new GatewayGate();
    const ledger = new ClientLedger();
    gate.open(refusing.url);
    let loadDone = false;
    const load = LOAD_SESSIONS.map((sessionId, index) =>
      runChatSession({ sessionId, gate, ledger, model: MODEL, random: createSeededRandom(100 + index), done: () => loadDone }),
    );
    await ledger.whenAcknowledged(6);

    // a call on each gateway whose in_progress row is committed, its backend answer held until the server is down
    const heldRefused = chat(refusing, 'held-refuse', true, HOLD);
    const heldServed = chat(serving, 'held-serve', true, HOLD);
    await waitUntil('both held calls wait at the door', () => door!.waiting === 2);
    await waitUntil('both held rows are committed', () => statuses('held-refuse').length + statuses('held-serve').length === 2);
    const acknowledgedBefore = ledger.acknowledged.length;
    server.stop();
    door.release();

    // the ends cannot be written: refuse ends the stream with an error event instead of [DONE]; serve answers in full
    expect(await readChatAnswer(await heldRefused, true)).toBeNull();
    const servedAnswer = await readChatAnswer(await heldServed, true);
    expect(servedAnswer).not.toBeNull();
    await waitUntil('the load meets the outage', () => ledger.unexpected.length >= 3);
    gate.close(); // the sessions wait for the server to return instead of asking again and again
    for (const gateway of [refusing, serving]) {
      for (const stream of [false, true]) {
        const refused = await chat(gateway, 'while-down', stream);
        expect(refused.status).toBe(503);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('TT_RECORDING_FAILED');
      }
      // the rollout API's reads meet the same outage: a 503 to retry, not a 500
      const rollout = await fetch(`${gateway.url}/tokentap/v1/sessions/${LOAD_SESSIONS[0]}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(rollout.status).toBe(503);
      expect(((await rollout.json()) as { error: { code: string } }).error.code).toBe('TT_STORE_UNAVAILABLE');
      // the held call's end, and on the refusing gateway those of load calls the stop cut in the middle
      await waitUntil('the held end is reported waiting', async () => (await health(gateway)).recording.endsWaiting >= 1);
      const { status, recording } = await health(gateway);
      expect(status).toBe('degraded');
      expect(recording.failing).toBe(true);
      expect(recording.lastFailure?.code).toMatch(DATABASE_AWAY);
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(sampleValue(metrics, 'tokentap_recording_failing')).toBe(1);
      expect(sampleValue(metrics, 'tokentap_recording_ends_waiting')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(metrics, 'tokentap_recording_failures_total')).toBeGreaterThanOrEqual(3);
    }

    server.start();
    gate.open(refusing.url);
    for (const gateway of [refusing, serving]) {
      await waitUntil('the held end is written and recording works again', async () => {
        const { status, recording } = await health(gateway);
        return status === 'ok' && recording.endsWaiting === 0;
      });
      expect((await chat(gateway, 'after', false)).status).toBe(200);
    }
    await ledger.whenAcknowledged(ledger.acknowledged.length + 6);
    loadDone = true;
    await Promise.all(load);
    for (const gateway of gateways.splice(0)) {
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
      expect(gateway.lines.some((line) => line.includes('every call recorded'))).toBe(true);
    }

    // refuse: the harness got an error, so the row says incomplete, without tokens; serve: the end it was served, in full
    const [refusedRow] = reader.listCalls('held-refuse');
    expect([refusedRow!.status, refusedRow!.completionTokenIds]).toEqual(['incomplete', null]);
    const [servedRow] = reader.listCalls('held-serve');
    const servedRecord = simRecords.get(servedAnswer!.responseId)!;
    expect(servedRow!.status).toBe('ok');
    expect(Array.from(servedRow!.promptTokenIds!)).toEqual(servedRecord.promptTokenIds);
    expect(Array.from(servedRow!.completionTokenIds!)).toEqual(servedRecord.completionTokenIds);
    expect(reader.listCalls('while-down')).toEqual([]);
    expect(statuses('after')).toEqual(['ok', 'ok']);
    // every call a session got in full is ok with the simulator's exact ids; the rest incomplete and empty, or absent
    const verdict = verifyRecoveredStore(reader, LOAD_SESSIONS, ledger.acknowledged, simRecords);
    expect(verdict.violations).toEqual([]);
    expect(verdict.lost).toBe(0);
    expect(verdict.verified).toBe(ledger.acknowledged.length);
    expect(ledger.acknowledged.length).toBeGreaterThanOrEqual(acknowledgedBefore + 6);
    expect(ledger.unexpected.every((answer) => answer.startsWith('HTTP 503') && answer.includes('TT_RECORDING_FAILED'))).toBe(true);
  }, 90_000);
});
