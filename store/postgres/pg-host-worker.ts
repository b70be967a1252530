/**
 * The worker thread behind one PostgreSQL store connection (pg-database.ts): it holds a `pg` client and runs each
 * request it is sent, one at a time, answering on the shared port and waking the waiting thread. A request's
 * statements go out back to back (the client's pipeline mode: each is written without waiting for the one before to
 * be answered, each with its own Sync, so one that fails leaves the others their own answers). A client whose
 * connection failed (the database restarted, the network dropped) is discarded; the next request connects anew.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import {
  PG_BRIDGE_PROTOCOL,
  type FromPgHost,
  type PgHostData,
  type PgOutcome,
  type PgStep,
  type PgWireError,
  type ToPgHost,
} from './pg-bridge-protocol.js';

const data = workerData as PgHostData;
if (parentPort === null) throw new Error('pg-host-worker.js runs as a worker thread (pg-database.ts starts it)');
if (data.protocol !== PG_BRIDGE_PROTOCOL)
  throw new Error(`the PostgreSQL worker speaks protocol ${PG_BRIDGE_PROTOCOL}, the store ${data.protocol}: rebuild`);

// counts and sums come back as numbers, as from SQLite (int8 and numeric are strings by default)
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => Number(value));

let client: pg.Client | null = null;
let broken = false;

async function connected(): Promise<pg.Client> {
  if (client !== null && !broken) return client;
  if (client !== null) void client.end().catch(() => undefined);
  broken = false;
  const fresh = new pg.Client({
    connectionString: data.connectionString,
    connectionTimeoutMillis: data.connectTimeoutMs,
    query_timeout: data.queryTimeoutMs,
    application_name: data.applicationName,
    pipeline: true,
    ...(data.readonly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // an error between requests (the server went away) only marks the client; the next request reconnects
  fresh.on('error', () => {
    broken = true;
  });
  client = fresh;
  try {
    await fresh.connect();
  } catch (error) {
    broken = true;
    throw error;
  }
  return fresh;
}

/** Buffers cross threads as plain Uint8Arrays; pg binds a Buffer as bytea (an Uint8Array it would not). */
function toBindValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'bigint') return value.toString();
  return value;
}

async function handle(steps: readonly PgStep[], continues: boolean): Promise<PgOutcome[]> {
  let connection: pg.Client;
  try {
    // the transaction these steps belong to went with its connection: a new one would run them outside it
    if (continues && (client === null || broken)) throw new LostTransaction();
    connection = await connected();
  } catch (error) {
    const wire = toWireError(error);
    return steps.map(() => ({ ok: false, error: wire }));
  }
  // all written before the first is answered: one wait on the server for the lot
  return Promise.all(
    steps.map((step) =>
      send(connection, step).then(
        ({ rows, rowCount }): PgOutcome => ({ ok: true, rows, rowCount }),
        (error: unknown): PgOutcome => ({ ok: false, error: toWireError(error) }),
      ),
    ),
  );
}

async function send(connection: pg.Client, step: PgStep): Promise<{ rows: unknown[]; rowCount: number }> {
  if (step.kind === 'exec') {
    await connection.query(step.text);
    return { rows: [], rowCount: 0 };
  }
  const result = await connection.query({
    ...(step.name === null ? {} : { name: step.name }),
    text: step.text,
    values: step.values.map(toBindValue),
    ...(step.rowMode === null ? {} : { rowMode: step.rowMode }),
  });
  return { rows: result.rows as unknown[], rowCount: result.rowCount ?? 0 };
}

class LostTransaction extends Error {
  readonly code = 'PG_CONNECTION_LOST';
  constructor() {
    super('the PostgreSQL connection was lost in this transaction');
  }
}

function toWireError(error: unknown): PgWireError {
  const { message, code } = error as { message?: unknown; code?: unknown };
  const sqlState = typeof code === 'string' ? code : null;
  // SQLSTATE class 08 is a connection exception, 57P01-57P03 an administrator shutdown or a server starting up
  const connectionLost = broken || sqlState === null || sqlState.startsWith('08') || /^57P0[1-3]$/.test(sqlState) || !/^[0-9A-Z]{5}$/.test(sqlState);
  if (connectionLost) broken = true;
  return { message: typeof message === 'string' ? message : String(error), code: sqlState, connectionLost };
}

function answerWith(message: FromPgHost): void {
  data.port.postMessage(message);
  Atomics.store(data.signal, 0, 1);
  Atomics.notify(data.signal, 0);
}

parentPort.on('message', (sent: ToPgHost & { id: number }) => {
  const { id, ...request } = sent;
  const answer = (message: FromPgHost): void => answerWith({ ...message, id });
  if (request.kind === 'close') {
    const closing = client;
    client = null;
    void (closing?.end() ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        answer({ outcomes: [] });
        data.port.close();
        parentPort?.close();
      });
    return;
  }
  void handle(request.steps, request.continues).then((outcomes) => answer({ outcomes }));
});
