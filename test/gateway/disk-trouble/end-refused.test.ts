import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../gateway/create-gateway.js';
import { createSimBackend, type SimBackend } from '../../../sim/index.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { sampleValue } from '../metrics/metric-value.js';
import { captureLogger } from '../recorder/recorder-fixtures.js';
import { startHeldDoor, type HeldDoor } from '../../helpers/held-door.js';

/**
 * A disk that fills between a call's begin and its end (issue 12, item 5): the `in_progress` rows fit, the ends do
 * not. Real SQLite at a real limit: the gateway's writing connection is capped (`dbMaxBytes`, max_page_count), the
 * backend is held at a door while a second connection fills the file to that cap with a table of its own, and
 * dropping that table is the space coming back (its pages are free for the gateway). Each end carries a reply of
 * thousands of tokens, so it needs new pages where an `in_progress` row needs none.
 */
const CAP_BYTES = 4 * 1024 * 1024;
const CALLS = 3;
const SESSION = 'full-at-the-end';

interface Setup {
  gateway: Gateway;
  url: string;
  db: string;
  lines: Array<Record<string, unknown>>;
  sim: SimBackend;
  door: HeldDoor;
}

let setup: Setup | undefined;
let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  setup = undefined;
});

async function start(recordInWorker: boolean, recordFailure: 'serve' | 'refuse'): Promise<Setup> {
  const temp = makeTempDir();
  cleanup.push(() => temp.remove());
  // hex of random bytes: thousands of tokens no compression shrinks much
  const reply = randomBytes(3000).toString('hex');
  const sim = await createSimBackend({ fast: true, acceptAnyModel: true, script: { replies: [{ content: reply, times: 'forever' }] } });
  cleanup.push(() => sim.close());
  const door = await startHeldDoor(await sim.listen());
  cleanup.push(() => door.close());
  const { logger, lines } = captureLogger();
  const db = temp.file('tokentap.db');
  const gateway = createGateway({ backendUrl: door.url, db, port: 0, logger, dbMaxBytes: CAP_BYTES, recordInWorker, recordFailure });
  cleanup.push(() => (gateway.closeReport() === null ? gateway.close() : undefined));
  const url = await gateway.listen();
  expect(gateway.recorder.health().mode).toBe(recordInWorker ? 'worker' : 'thread');
  setup = { gateway, url, db, lines, sim, door };
  return setup;
}

function chat(stream: boolean): Promise<Response> {
  return fetch(`${setup!.url}/s/${SESSION}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', max_tokens: 8000, stream, messages: [{ role: 'user', content: 'a long answer, please' }] }),
  });
}

/** Polls `check` until it holds; fails past the deadline. */
async function waitUntil(what: string, check: () => boolean | Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function statuses(): string[] {
  return setup!.gateway.store.listCalls(SESSION).map((call) => call.status);
}

/** A second connection, capped like the gateway's, fills every page up to the cap with a table of its own. */
function fillTheDisk(db: string): Database.Database {
  const filler = new Database(db);
  filler.pragma('busy_timeout = 5000');
  const pageSize = filler.pragma('page_size', { simple: true }) as number;
  filler.pragma(`max_page_count = ${Math.floor(CAP_BYTES / pageSize)}`);
  filler.exec('CREATE TABLE test_filler (bytes BLOB)');
  const insert = filler.prepare('INSERT INTO test_filler VALUES (?)');
  for (const size of [65_536, 4096, 512, 64, 8, 1]) {
    for (;;) {
      try {
        insert.run(randomBytes(size));
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_FULL') break;
        throw error;
      }
    }
  }
  return filler;
}

/** Space returns: the filler's pages go back to the free list, where the gateway's connection finds them. */
function makeRoom(filler: Database.Database): void {
  filler.pragma('max_page_count = 1073741823');
  filler.exec('DROP TABLE test_filler');
  filler.close();
}

/** Starts the calls, waits for their `in_progress` rows, fills the disk, then lets the backend answer. */
async function callsWhoseEndsDoNotFit(): Promise<{ responses: Response[]; filler: Database.Database }> {
  const pending = Array.from({ length: CALLS }, (_, index) => chat(index === 0));
  await waitUntil('every call waits at the door', () => setup!.door.waiting === CALLS);
  await waitUntil('every begin is committed', () => statuses().filter((status) => status === 'in_progress').length === CALLS);
  const filler = fillTheDisk(setup!.db);
  cleanup.push(() => filler.open && filler.close());
  setup!.door.release();
  const responses = await Promise.all(pending);
  return { responses, filler };
}

async function healthz(): Promise<{ status: string; recording: Record<string, unknown> }> {
  return (await (await fetch(`${setup!.url}/healthz`)).json()) as { status: string; recording: Record<string, unknown> };
}

for (const recordInWorker of [true, false]) {
  describe(`ends refused by a full disk, recording ${recordInWorker ? 'on the worker' : 'on the gateway thread'}`, () => {
    it('serve: the rows wait in_progress (healthz degraded, metrics), then get their full end once space returns, without a restart', async () => {
      await start(recordInWorker, 'serve');
      const { responses, filler } = await callsWhoseEndsDoNotFit();
      const texts = await Promise.all(responses.map(async (response) => ({ status: response.status, text: await response.text() })));
      expect(texts.map(({ status }) => status)).toEqual([200, 200, 200]);
      await waitUntil('the refused ends are reported waiting', () => setup!.gateway.recorder.health().endsWaiting === CALLS);
      expect(await healthz()).toMatchObject({
        status: 'degraded',
        recording: { endsWaiting: CALLS, lastFailure: { code: 'SQLITE_FULL', stage: 'finish' } },
      });
      const metrics = await (await fetch(`${setup!.url}/metrics`)).text();
      expect(sampleValue(metrics, 'tokentap_recording_ends_waiting')).toBe(CALLS);
      expect(statuses()).toEqual(['in_progress', 'in_progress', 'in_progress']);

      makeRoom(filler);
      await waitUntil('every row reaches its end', () => statuses().every((status) => status === 'ok'));
      const calls = setup!.gateway.store.listCalls(SESSION);
      for (const [index, call] of calls.entries()) {
        // the end written late is the one the harness was served: the simulator's ids, in full
        expect(Array.from(call.completionTokenIds ?? [])).toEqual(setup!.sim.log[index]!.completionTokenIds);
      }
      expect(calls.map((call) => call.stream).sort()).toEqual([false, false, true]);
      await waitUntil('healthz is ok again', async () => (await healthz()).status === 'ok');
      expect((await healthz()).recording).toMatchObject({ endsWaiting: 0, endsRetried: CALLS, callsRecorded: CALLS, callsMarkedIncomplete: 0 });
      expect(setup!.lines).toContainEqual(expect.objectContaining({ msg: 'recording works again' }));
      await setup!.gateway.close();
      expect(setup!.gateway.closeReport()).toEqual({ unfinishedCalls: 0 });
    });

    it('refuse: the harness got 503, so the rows are marked incomplete (never ok) as soon as the store takes a write', async () => {
      await start(recordInWorker, 'refuse');
      const { responses, filler } = await callsWhoseEndsDoNotFit();
      expect(responses.slice(1).map((response) => response.status)).toEqual([503, 503]);
      expect(await responses[0]!.text()).toContain('TT_RECORDING_FAILED'); // the stream: every token, then the error event
      makeRoom(filler);
      await waitUntil('every row is marked incomplete', () => statuses().every((status) => status === 'incomplete'));
      await waitUntil('healthz reports none waiting', async () => (await healthz()).recording.endsWaiting === 0);
      expect((await healthz()).recording).toMatchObject({ callsMarkedIncomplete: CALLS, endsRetried: 0, callsRecorded: 0 });
      expect(setup!.lines).toContainEqual(expect.objectContaining({ msg: 'calls whose end could not be written are marked incomplete' }));
    });

    it('shutdown while the store takes no write: says how many calls did not reach a final status', async () => {
      await start(recordInWorker, 'serve');
      const { responses } = await callsWhoseEndsDoNotFit();
      await Promise.all(responses.map((response) => response.text()));
      await waitUntil('the refused ends are reported waiting', () => setup!.gateway.recorder.health().endsWaiting === CALLS);
      // another process holds the write lock through the shutdown: not even the incomplete mark goes in
      const locker = new Database(setup!.db);
      cleanup.push(() => locker.close());
      locker.exec('BEGIN IMMEDIATE');
      await setup!.gateway.close();
      locker.exec('ROLLBACK');
      expect(setup!.gateway.closeReport()).toEqual({ unfinishedCalls: CALLS });
      const reader = new Database(setup!.db, { readonly: true });
      const left = reader.prepare(`SELECT count(*) AS n FROM calls WHERE status = 'in_progress'`).get() as { n: number };
      reader.close();
      expect(left.n).toBe(CALLS);
    }, 60_000);
  });
}
