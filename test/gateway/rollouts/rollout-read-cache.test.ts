import type pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { CreatedSession } from '../../../gateway/rollouts/rollout-api.js';
import { PgDatabase } from '../../../store/postgres/pg-database.js';
import { acquireMigratedDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../../helpers/test-postgres.js';
import { captureLogger } from '../recorder/recorder-fixtures.js';
import { api, chatBody, postChat, startRolloutGateway } from './rollout-test-helpers.js';

/**
 * The rollout rows a call's admission reads, kept by each gateway where the store announces session ends
 * (gateway/rollouts/rollout-read-cache.ts): on PostgreSQL a session's row is read once, not once per call; an end
 * made through another gateway reaches every gateway's admission; a watch whose connection drops sends every read
 * to the store until it listens again. SQLite keeps nothing.
 */
const started: GatewayWithSim[] = [];
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((setup) => setup.close()));
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function gatewayOn(db: string, logger?: pino.Logger): Promise<GatewayWithSim> {
  const setup = await startRolloutGateway({ fast: true }, { db, sessionIdleTimeoutMs: 0, ...(logger === undefined ? {} : { logger }) });
  started.push(setup);
  return setup;
}

/** `tokentap_rollout_reads_total` by where the answer came from, and `tokentap_rollout_cache_live`, from /metrics. */
async function cacheMetrics(setup: GatewayWithSim): Promise<{ store: number; memory: number; live: number }> {
  const text = await (await fetch(`${setup.url}/metrics`)).text();
  const read = (pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  return {
    store: read(/^tokentap_rollout_reads_total\{from="store"\} (\d+)$/m),
    memory: read(/^tokentap_rollout_reads_total\{from="memory"\} (\d+)$/m),
    live: read(/^tokentap_rollout_cache_live (\d+)$/m),
  };
}

async function createSession(setup: GatewayWithSim, id: string): Promise<CreatedSession> {
  const answer = await api<CreatedSession>(setup, 'POST', '/sessions', { body: { id } });
  expect(answer.status).toBe(201);
  return answer.body;
}

describe.skipIf(!postgresAvailable())(postgresAvailable() ? 'on PostgreSQL' : `on PostgreSQL (skipped: ${postgresUnavailable()})`, () => {
  it("reads a session's row once; an end through another gateway refuses that gateway's next calls", async () => {
    const url = acquireMigratedDatabase();
    cleanups.push(() => dropTestDatabase(url));
    const [first, second] = [await gatewayOn(url), await gatewayOn(url)];
    await vi.waitFor(async () => expect((await cacheMetrics(second)).live).toBe(1), { timeout: 10_000 });
    const { apiKey, session } = await createSession(first, 'task-1');
    const base = second.openaiBase(session.id);
    for (let call = 1; call <= 3; call++) expect((await postChat(base, apiKey, chatBody(`call ${call}`))).status).toBe(200);
    expect(await cacheMetrics(second)).toEqual({ store: 1, memory: 2, live: 1 });

    expect((await api(first, 'POST', `/sessions/${session.id}/end`, { body: { status: 'completed' } })).status).toBe(200);
    // the end's notice reaches the second gateway's admission (at once here; it polls so a loaded machine passes)
    await vi.waitFor(
      async () => {
        const refused = await postChat(base, apiKey, chatBody('after the end'));
        expect([refused.status, (refused.body as { error?: { code?: string } }).error?.code]).toEqual([409, 'TT_SESSION_ENDED']);
      },
      { timeout: 5_000, interval: 20 },
    );
    // the first gateway's own end drops its own kept row at once
    expect((await postChat(first.openaiBase(session.id), apiKey, chatBody('here too'))).status).toBe(409);
  }, 60_000);

  it('reads the store for every call while its watch is down, and keeps rows again once it listens', async () => {
    const url = acquireMigratedDatabase();
    cleanups.push(() => dropTestDatabase(url));
    const { logger, lines } = captureLogger();
    const setup = await gatewayOn(url, logger);
    const warnings = (): unknown[] => lines.filter((line) => line.level === 40).map((line) => line.msg);
    await vi.waitFor(async () => expect((await cacheMetrics(setup)).live).toBe(1), { timeout: 10_000 });
    const { apiKey, session } = await createSession(setup, 'task-2');
    const base = setup.openaiBase(session.id);
    expect((await postChat(base, apiKey, chatBody('one'))).status).toBe(200);
    expect((await postChat(base, apiKey, chatBody('two'))).status).toBe(200);
    expect(await cacheMetrics(setup)).toEqual({ store: 1, memory: 1, live: 1 });

    // the server ends the watch's connection (as a restart would): the gateway stops keeping rows at once
    const admin = new PgDatabase({ connectionString: url });
    cleanups.unshift(() => admin.close());
    const ended = admin
      .prepare<[], { ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = 'tokentap-session-watch' AND datname = current_database()`,
      )
      .all();
    expect(ended).toEqual([{ ended: true }]);
    await vi.waitFor(async () => expect((await cacheMetrics(setup)).live).toBe(0), { timeout: 5_000, interval: 10 });
    expect((await postChat(base, apiKey, chatBody('three'))).status).toBe(200);
    expect((await postChat(base, apiKey, chatBody('four'))).status).toBe(200);
    expect(await cacheMetrics(setup)).toMatchObject({ store: 3, memory: 1 });

    // it connects again by itself (a second later) and keeps rows read from then on
    await vi.waitFor(async () => expect((await cacheMetrics(setup)).live).toBe(1), { timeout: 10_000, interval: 50 });
    expect((await postChat(base, apiKey, chatBody('five'))).status).toBe(200);
    expect((await postChat(base, apiKey, chatBody('six'))).status).toBe(200);
    expect(await cacheMetrics(setup)).toEqual({ store: 4, memory: 2, live: 1 });
    // the loss was said once; the gateway's own close of its watch is no loss
    await setup.close();
    started.splice(started.indexOf(setup), 1);
    expect(warnings()).toEqual(['the store no longer announces session ends: rollout rows are read for every call until it does again']);
  }, 60_000);
});

describe('on SQLite', () => {
  it('keeps no row: every call reads its session from the file', async () => {
    const setup = await startRolloutGateway({ fast: true }, { sessionIdleTimeoutMs: 0 });
    started.push(setup);
    const { apiKey, session } = await createSession(setup, 'task-3');
    for (let call = 1; call <= 3; call++) expect((await postChat(setup.openaiBase(session.id), apiKey, chatBody(`call ${call}`))).status).toBe(200);
    expect(await cacheMetrics(setup)).toEqual({ store: 3, memory: 0, live: 0 });
  }, 30_000);
});
