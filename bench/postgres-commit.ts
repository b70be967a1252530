import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Conversation, emptyTally, sendCall, type CallShape, type CallTally } from './postgres-client.js';
import { percentile } from './percentile.js';
import type { EngineCommitFigures } from './postgres-report.js';
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

/** The pauses before each commit of measureEngineCommits: back to back, this bench's c=1 pace, a real backend's. */
export const COMMIT_GAPS_MS = [0, 10, 70] as const;

/**
 * What one commit costs each engine alone (no gateway, no worker thread): one autocommitted 2 KB insert on a plain `pg`
 * client and on a plain better-sqlite3 connection set up as the store's (WAL, synchronous=NORMAL), alternating, after
 * each pause of COMMIT_GAPS_MS. PostgreSQL's commit crosses to the server's process and flushes the WAL; SQLite's
 * writes its WAL on the calling thread without a sync. On a machine whose cores sleep between calls, the server's
 * process also pays a wake-up after a pause. Their difference is the floor under the c=1 target that no gateway design
 * reaches below: what the gateway adds on top of it is its own. A third series, PostgreSQL with synchronous_commit off,
 * shows how much of the floor is the WAL flush.
 *
 * @example const { postgres, sqlite } = await measureEngineCommits(postgres.createDatabase('bench_commit'), join(workDir, 'commit.db'));
 */
export async function measureEngineCommits(url: string, sqlitePath: string, times = 40): Promise<EngineCommitFigures> {
  const client = new pg.Client({ connectionString: url, application_name: 'tokentap-bench' });
  await client.connect();
  // what the flush costs: the same insert where the server answers before its WAL is flushed (not durable past a
  // server crash, so never the store's setting: docs/reliability.md)
  const unsynced = new pg.Client({ connectionString: url, application_name: 'tokentap-bench', options: '-c synchronous_commit=off' });
  await unsynced.connect();
  const sqlite = new Database(sqlitePath);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.exec('CREATE TABLE idle_commit (id INTEGER PRIMARY KEY, data BLOB)');
    const insert = sqlite.prepare('INSERT INTO idle_commit (data) VALUES (?)');
    await client.query('CREATE TABLE idle_commit (id serial PRIMARY KEY, data bytea)');
    const data = Buffer.alloc(2048, 0x31);
    const figures: EngineCommitFigures = { gapsMs: [...COMMIT_GAPS_MS], postgres: [], postgresUnsynced: [], sqlite: [] };
    const engines = ['postgres', 'postgresUnsynced', 'sqlite'] as const;
    for (const gapMs of COMMIT_GAPS_MS) {
      const latencies = { postgres: [] as number[], postgresUnsynced: [] as number[], sqlite: [] as number[] };
      for (let index = 0; index < times; index++) {
        // each commit follows a pause of its own (the others' commits are quick next to 10 ms); the order turns
        for (let step = 0; step < engines.length; step++) {
          const engine = engines[(index + step) % engines.length]!;
          if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
          const startedAt = performance.now();
          if (engine === 'sqlite') insert.run(data);
          else await (engine === 'postgres' ? client : unsynced).query({ text: 'INSERT INTO idle_commit (data) VALUES ($1)', values: [data] });
          latencies[engine].push(performance.now() - startedAt);
        }
      }
      for (const engine of engines) figures[engine].push(percentile(latencies[engine], 0.5));
    }
    return figures;
  } finally {
    sqlite.close();
    await client.end();
    await unsynced.end();
  }
}
