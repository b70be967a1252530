import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Conversation, emptyTally, percentile, sendCall, type CallShape, type CallTally } from './postgres-client.js';
import type { IdleCommitFigures } from './postgres-report.js';
import type { BenchSetup } from './postgres-setups.js';

export interface CommitLatencyOptions {
  /** the simulator, then a gateway on SQLite and one on PostgreSQL, each on a fresh database of its own */
  setups: readonly [direct: BenchSetup, sqlite: BenchSetup, postgres: BenchSetup];
  shape: CallShape;
  /** conversations, one after another (each `shape.turns` calls); the first is a warm-up, not counted */
  sessions: number;
}

/**
 * Concurrency 1: each call of a conversation is sent to every setup in turn (the order turning call by call), one at
 * a time, and the history grows from the simulator's own answer, so both stores are sent the same requests and record
 * the same content. A gateway commits a call before its last byte (docs/reliability.md, promise 1): at c=1 the
 * difference of the gateways' p50 latency is what that commit costs on one engine over the other.
 *
 * @example const [direct, sqlite, postgres] = await runCommitLatency({ setups: [direct, sqlite, postgres], shape, sessions: 10 });
 */
export async function runCommitLatency(options: CommitLatencyOptions): Promise<CallTally[]> {
  const tallies = options.setups.map(() => emptyTally());
  let call = 0;
  for (let session = 0; session < options.sessions; session++) {
    const conversation = new Conversation(`commit-${session}`, options.shape);
    const counted = session > 0;
    for (let turn = 0; turn < options.shape.turns; turn++) {
      const { sessionId } = conversation;
      const body = conversation.body();
      const answers: Array<string | null> = [null, null, null];
      for (let step = 0; step < options.setups.length; step++) {
        const index = (call + step) % options.setups.length;
        const startedAt = performance.now();
        const tally = counted ? tallies[index]! : emptyTally();
        answers[index] = await sendCall(options.setups[index]!.targets[0]!, sessionId, body, options.shape.tokens, tally);
        if (counted) tally.seconds += (performance.now() - startedAt) / 1000;
      }
      call++;
      const answer = answers.find((text): text is string => text !== null);
      if (answer === undefined) throw new Error(`no setup answered call ${turn + 1} of ${sessionId}`);
      conversation.advance(answer);
    }
  }
  return tallies;
}

/**
 * p50 ms of one 8 KB write and fdatasync in `folder`: what PostgreSQL's WAL flush costs at each commit on this disk
 * (synchronous_commit on, as the durability promise needs), where SQLite in WAL mode with synchronous=NORMAL writes
 * the WAL without a sync (store/configure-connection.ts).
 *
 * @example measureFdatasyncMs(workDir) // 3.5 on the development machine's disk
 */
export function measureFdatasyncMs(folder: string, times = 50): number {
  const path = join(folder, 'fdatasync.test');
  const page = Buffer.alloc(8192, 0x31);
  const fd = openSync(path, 'w');
  const latencies: number[] = [];
  try {
    for (let index = 0; index < times; index++) {
      const startedAt = performance.now();
      writeSync(fd, page, 0, page.length, 0);
      fdatasyncSync(fd);
      latencies.push(performance.now() - startedAt);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return percentile(latencies, 0.5);
}

/**
 * What one commit costs the server and the client alone (no gateway, no worker thread), issued back to back and after
 * 70 ms of idleness, as calls tens of ms apart (a real backend's pace) find the server: on a machine whose cores sleep
 * between calls, the server's process (and each thread a message wakes) pays a wake-up, which a SQLite commit made on
 * the writing thread does not.
 *
 * @example const { hotMs, afterIdleMs } = await measurePgIdleCommit(postgres.createDatabase('bench_idle'));
 */
export async function measurePgIdleCommit(url: string, times = 40): Promise<IdleCommitFigures> {
  const client = new pg.Client({ connectionString: url, application_name: 'tokentap-bench' });
  await client.connect();
  try {
    await client.query('CREATE TABLE idle_commit (id serial PRIMARY KEY, data bytea)');
    const data = Buffer.alloc(2048, 0x31);
    const time = async (idleMs: number): Promise<number> => {
      const latencies: number[] = [];
      for (let index = 0; index < times; index++) {
        if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
        const startedAt = performance.now();
        await client.query({ text: 'INSERT INTO idle_commit (data) VALUES ($1)', values: [data] });
        latencies.push(performance.now() - startedAt);
      }
      return percentile(latencies, 0.5);
    };
    return { hotMs: await time(0), afterIdleMs: await time(70) };
  } finally {
    await client.end();
  }
}
