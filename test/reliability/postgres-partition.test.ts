import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { BUILT_CLI, freePort, startGatewayProcess, type GatewayProcess } from '../../bench/gateway-process.js';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { openStore } from '../../store/index.js';
import type { Store } from '../../store/types.js';
import { postgresAvailable, postgresUnavailable } from '../helpers/test-postgres.js';
import { createTempWorkspace, type TempWorkspace } from '../store/store-fixtures.js';
import { SilentRelay } from '../helpers/silent-relay.js';

/**
 * PostgreSQL gone silent without refusing anything (docs/reliability.md promise 8, "A server gone silent"): a network
 * partition or a frozen host leaves every connection open and unanswered, so no error says the database is away. The
 * gateway's event loop waits on its own statements (the store's contract is synchronous), so before
 * `dbQueryTimeoutMs` and the bounded reconnect wait (store/postgres/pg-host-worker.ts) one statement held it for the
 * 30 s query timeout and each one after for the 5 s connect timeout: /healthz took 45 s and calls a minute.
 *
 * A gateway stopped meanwhile must still exit, and a command started meanwhile must stop with one line.
 *
 * Played for real: a TCP relay on this thread (the gateway is its own process) in front of the test's server
 * (helpers/silent-relay.ts), frozen, then thawed.
 */

const MODEL = 'Qwen/Qwen3-8B';
const QUERY_TIMEOUT_MS = 1_000;

let workspace: TempWorkspace | undefined;
let relay: SilentRelay | undefined;
let sim: SimBackend | undefined;
let gateway: GatewayProcess | undefined;
let reader: Store | undefined;

afterEach(async () => {
  gateway?.child.kill('SIGKILL');
  await gateway?.exited;
  await relay?.close();
  await sim?.close();
  reader?.close();
  workspace?.cleanup();
  [workspace, relay, sim, gateway, reader] = [undefined, undefined, undefined, undefined, undefined];
});

interface Timed<T> {
  startedAt: number;
  ms: number;
  value: T;
}

async function timed<T>(run: () => Promise<T>): Promise<Timed<T>> {
  const startedAt = performance.now();
  const value = await run();
  return { startedAt, ms: performance.now() - startedAt, value };
}

async function health(): Promise<{ status: string; failing: boolean }> {
  const answer = (await (await fetch(`${gateway!.url}/healthz`, { signal: AbortSignal.timeout(60_000) })).json()) as {
    status: string;
    recording: { failing: boolean };
  };
  return { status: answer.status, failing: answer.recording.failing };
}

async function chat(session: string): Promise<{ status: number; code: string | null }> {
  const response = await fetch(`${gateway!.url}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: body.error?.code ?? null };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A gateway on a database of its own, through a relay not frozen yet, in front of the simulator; one call recorded. */
async function startBehindRelay(seed: number): Promise<{ workspace: TempWorkspace; relay: SilentRelay; gateway: GatewayProcess }> {
  const space = (workspace = createTempWorkspace('postgres'));
  const silent = (relay = await SilentRelay.start(new URL(space.databasePath)));
  const db = new URL(space.databasePath);
  db.port = String(silent.port);
  sim = await createSimBackend({ fast: true, acceptAnyModel: true, seed });
  const served = (gateway = await startGatewayProcess({
    backendUrl: await sim.listen(),
    db: db.toString(),
    port: await freePort(),
    args: ['--db-query-timeout-ms', String(QUERY_TIMEOUT_MS)],
  }));
  expect(await chat('before')).toEqual({ status: 200, code: null });
  return { workspace: space, relay: silent, gateway: served };
}

describe.skipIf(!postgresAvailable())(`PostgreSQL gone silent${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`, () => {
  it('holds the gateway at most the query timeout once: /healthz then answers at once, degraded, calls fail fast; healed, it records again by itself', async () => {
    const { workspace, relay, gateway } = await startBehindRelay(5);

    relay.freeze();
    const frozenAt = performance.now();
    const probes: Array<Timed<{ status: string; failing: boolean }>> = [];
    const calls: Array<Promise<Timed<{ status: number; code: string | null }> & { session: string }>> = [];
    for (let round = 0; performance.now() - frozenAt < 4 * QUERY_TIMEOUT_MS + 2_000; round += 1) {
      const session = `during-${round}`;
      if (round % 3 === 0) calls.push(timed(() => chat(session)).then((call) => ({ ...call, session })));
      probes.push(await timed(health));
      await pause(100);
    }
    const during = await Promise.all(calls);

    // one statement may hold the event loop for the query timeout; nothing holds it longer, and once the store is
    // known to be away, /healthz answers at once (the reconnect attempt waits apart, PG_RECONNECT_WAIT_MS at most)
    const slowest = Math.max(...probes.map((probe) => probe.ms));
    expect(slowest).toBeLessThan(QUERY_TIMEOUT_MS + 1_500);
    const settled = probes.filter((probe) => probe.startedAt > frozenAt + QUERY_TIMEOUT_MS + 1_500);
    expect(settled.length).toBeGreaterThan(10);
    expect(settled.map((probe) => probe.value)).toEqual(settled.map(() => ({ status: 'degraded', failing: true })));
    // at most one reconnect wait (250 ms) on the loop, plus a loaded machine's scheduling
    expect(Math.max(...settled.map((probe) => probe.ms))).toBeLessThan(1_000);
    // the calls that came once the store was known away were refused, and fast, in the protocol's shape
    const late = during.filter((call) => call.startedAt > frozenAt + QUERY_TIMEOUT_MS + 1_500);
    expect(late.length).toBeGreaterThan(2);
    expect(late.map((call) => call.value)).toEqual(late.map(() => ({ status: 503, code: 'TT_RECORDING_FAILED' })));
    expect(Math.max(...late.map((call) => call.ms))).toBeLessThan(QUERY_TIMEOUT_MS + 1_500);

    relay.thaw();
    const healedAt = performance.now();
    let after = await chat('after-0');
    for (let round = 1; after.status !== 200 && performance.now() - healedAt < 10_000; round += 1) {
      await pause(100);
      after = await chat(`after-${round}`);
    }
    expect(after).toEqual({ status: 200, code: null });
    expect(await health()).toEqual({ status: 'ok', failing: false });

    gateway.child.kill('SIGTERM');
    expect((await gateway.exited).code).toBe(0);
    // what the harness was told is what the store holds: an answered call is ok, a refused one left no ok row
    reader = openStore({ path: workspace.databasePath, readonly: true });
    expect(reader.listCalls('before').map((call) => call.status)).toEqual(['ok']);
    for (const call of during) {
      const statuses = reader.listCalls(call.session).map((row) => row.status);
      if (call.value.status === 200) expect(statuses).toEqual(['ok']);
      else expect(statuses.filter((status) => status !== 'incomplete')).toEqual([]);
    }
    expect(reader.listCalls('after-0').length + reader.listCalls('after-1').length).toBeGreaterThan(0);
  }, 60_000);

  it('stops on SIGTERM while the database is silent, within seconds: no close waits for a goodbye the server never answers', async () => {
    const { workspace, relay, gateway } = await startBehindRelay(6);
    relay.freeze();
    expect(await chat('during')).toEqual({ status: 503, code: 'TT_RECORDING_FAILED' });

    const stoppedAt = performance.now();
    gateway.child.kill('SIGTERM');
    const exit = await Promise.race([gateway.exited, pause(15_000).then(() => 'still running after 15 s')]);
    // each connection's goodbye waits PG_END_GRACE_MS (1 s) for the server, then its socket is closed
    expect(exit).toEqual({ code: 0, signal: null });
    expect(performance.now() - stoppedAt).toBeLessThan(6_000);

    relay.thaw();
    reader = openStore({ path: workspace.databasePath, readonly: true });
    expect(reader.listCalls('before').map((call) => call.status)).toEqual(['ok']);
    expect(reader.listCalls('during')).toEqual([]);
  }, 60_000);

  it('a command started while the database is silent stops after the connect timeout with one line naming it, exit 2', async () => {
    workspace = createTempWorkspace('postgres');
    relay = await SilentRelay.start(new URL(workspace.databasePath));
    relay.freeze();
    const db = new URL(workspace.databasePath);
    db.port = String(relay.port);
    db.password = 'secret-pw';
    const child = spawn(process.execPath, [BUILT_CLI, 'stats', '--db', db.toString()], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).toMatch(
      /cannot open the PostgreSQL store at postgres:\/\/[^:]+:\*\*\*@.* did not answer a new connection within 5000 ms \(the connect timeout\)/,
    );
    expect(output).not.toContain('secret-pw');
  }, 30_000);
});
