/**
 * The worker thread behind one PostgreSQL store connection (pg-database.ts): it holds a `pg` client and runs each
 * request it is sent, one at a time, answering on the shared port and waking the waiting thread. A request's
 * statements go out back to back (the client's pipeline mode: each is written without waiting for the one before to
 * be answered, each with its own Sync, so one that fails leaves the others their own answers). A client whose
 * connection failed (the database restarted, the network dropped, a query unanswered past the query timeout) is
 * discarded; the next request connects anew (`connected`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { settleWithin } from '../../core/async/settle-within.js';
import { endPgClient } from './end-pg-client.js';
import {
  PG_BRIDGE_PROTOCOL,
  type FromPgHost,
  type PgHostData,
  type PgOutcome,
  type PgStep,
  type PgWireError,
  type ToPgHost,
  PG_RECONNECT_WAIT_MS,
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
/** the connection being opened, shared by every request that arrives meanwhile */
let attempt: { opened: Promise<pg.Client>; startedAt: number } | null = null;
/** a connection was open once: later ones are reconnections, which a request waits for only PG_RECONNECT_WAIT_MS */
let everConnected = false;
let closing = false;

/**
 * The open client, or a new one. The store's first connection is waited for up to the connect timeout (an open that
 * cannot connect says why). A reconnection is waited for at most PG_RECONNECT_WAIT_MS from its start and then goes on
 * without the request, which fails as the connection lost (`ETIMEDOUT`): where the server refuses (a restart) that is
 * seen at once and each request tries anew, but a server that is gone silent (a partition, a host frozen) lets each
 * attempt run to the connect timeout, and the thread waiting on this one (the gateway's event loop) must not wait
 * that long for every statement. The next request after a failed attempt starts another.
 */
async function connected(): Promise<pg.Client> {
  if (client !== null && !broken) return client;
  if (client !== null) discard(client);
  client = null;
  const current = (attempt ??= open());
  if (!everConnected) return current.opened;
  const waited = await settleWithin(current.opened, current.startedAt + PG_RECONNECT_WAIT_MS - performance.now());
  if (waited === null) throw new StillConnecting(performance.now() - current.startedAt);
  return waited.value;
}

function open(): { opened: Promise<pg.Client>; startedAt: number } {
  const fresh = new pg.Client({
    connectionString: data.connectionString,
    connectionTimeoutMillis: data.connectTimeoutMs,
    query_timeout: data.queryTimeoutMs,
    application_name: data.applicationName,
    pipeline: true,
    // a connection that went silent between statements (a partition, no FIN) is found by the kernel's probes
    // (libuv: 10, a second apart) and fails before the next statement waits on it for the query timeout
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    ...(data.readonly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // an error between requests (the server went away) only marks the client; the next request reconnects
  fresh.on('error', () => {
    if (client === fresh) broken = true;
  });
  const opened = fresh.connect().then(
    () => {
      attempt = null;
      if (closing) {
        discard(fresh);
        throw new Error('the PostgreSQL store was closed');
      }
      client = fresh;
      broken = false;
      everConnected = true;
      return fresh;
    },
    (error: unknown) => {
      attempt = null;
      discard(fresh);
      // pg's own words for its connect timeout are 'timeout expired', without a code
      if ((error as { message?: unknown }).message === 'timeout expired') throw new ConnectTimedOut(data.connectTimeoutMs);
      throw error;
    },
  );
  // a request that stopped waiting leaves the attempt's failure to no one
  opened.catch(() => undefined);
  return { opened, startedAt: performance.now() };
}

function discard(connection: pg.Client): void {
  void endPgClient(connection);
}

class ConnectTimedOut extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(timeoutMs: number) {
    super(`PostgreSQL did not answer a new connection within ${timeoutMs} ms (the connect timeout)`);
  }
}

class StillConnecting extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(waitedMs: number) {
    super(`PostgreSQL has not accepted a new connection in ${Math.round(waitedMs)} ms (still trying)`);
  }
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
    closing = true;
    const last = client;
    client = null;
    void (last === null ? Promise.resolve() : endPgClient(last)).then(() => {
      answer({ outcomes: [] });
      data.port.close();
      parentPort?.close();
    });
    return;
  }
  void handle(request.steps, request.continues).then((outcomes) => answer({ outcomes }));
});
