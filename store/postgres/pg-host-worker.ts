/**
 * The worker thread behind one PostgreSQL store connection (pg-database.ts): it holds a `pg` client and runs each
 * request it is sent, one at a time, answering on the shared port and waking the waiting thread. A client whose
 * connection failed (the database restarted, the network dropped) is discarded; the next request connects anew.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { PG_BRIDGE_PROTOCOL, type FromPgHost, type PgHostData, type PgWireError, type ToPgHost } from './pg-bridge-protocol.js';

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

async function handle(request: Exclude<ToPgHost, { kind: 'close' }>): Promise<FromPgHost> {
  const connection = await connected();
  if (request.kind === 'exec') {
    await connection.query(request.text);
    return { ok: true, rows: [], rowCount: 0 };
  }
  if (request.prelude !== undefined && request.prelude !== null) await connection.query(request.prelude);
  const result = await connection.query({
    ...(request.name === null ? {} : { name: request.name }),
    text: request.text,
    values: request.values.map(toBindValue),
    ...(request.rowMode === null ? {} : { rowMode: request.rowMode }),
  });
  return { ok: true, rows: result.rows as unknown[], rowCount: result.rowCount ?? 0 };
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
        answer({ ok: true, rows: [], rowCount: 0 });
        data.port.close();
        parentPort?.close();
      });
    return;
  }
  handle(request).then(answer, (error: unknown) => answer({ ok: false, error: toWireError(error) }));
});
