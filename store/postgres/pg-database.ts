import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { SqlDatabase, SqlRunResult, SqlStatement, SqlTransaction } from '../sql/sql-database.js';
import { PG_BRIDGE_PROTOCOL, type FromPgHost, type PgHostData, type ToPgHost } from './pg-bridge-protocol.js';
import { translatePlaceholders, type TranslatedStatement } from './translate-placeholders.js';

/** A query the database has not answered in this long fails (the client's own timeout; the wait allows a bit more). */
export const DEFAULT_PG_QUERY_TIMEOUT_MS = 30_000;
export const DEFAULT_PG_CONNECT_TIMEOUT_MS = 5_000;

export interface PgDatabaseOptions {
  connectionString: string;
  queryTimeoutMs?: number;
  connectTimeoutMs?: number;
  applicationName?: string;
  /** PostgreSQL refuses every write on the connection (`default_transaction_read_only`) */
  readonly?: boolean;
}

/**
 * A PostgreSQL error as the store sees it: SQLSTATE or Node's code in `code`, and whether the connection was lost
 * (the recorder holds what it could not write and tries again; the next statement reconnects).
 */
export class PgError extends Error {
  readonly code: string | null;
  readonly connectionLost: boolean;
  constructor(message: string, code: string | null, connectionLost: boolean) {
    super(message);
    this.name = 'PgError';
    this.code = code;
    this.connectionLost = connectionLost;
  }
}

/**
 * One synchronous PostgreSQL connection with better-sqlite3's shape (sql/sql-database.ts), so the store's query
 * modules run on both engines. The `pg` client lives on a worker thread (pg-host-worker.ts); each statement is sent
 * there and this thread waits for its answer (Atomics.wait), as it waits for SQLite's file. Statements are named
 * prepared statements; transactions nest as savepoints like better-sqlite3's.
 *
 * @example
 * const database = new PgDatabase({ connectionString: 'postgres://tt@127.0.0.1:5432/tokentap' });
 * database.prepare<[string], { n: number }>('SELECT count(*) AS n FROM calls WHERE session_id = ?').get('s-1');
 */
export class PgDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal = new Int32Array(new SharedArrayBuffer(4));
  readonly #waitMs: number;
  #statements = 0;
  /** the number of the request in flight, echoed by its answer */
  #sequence = 0;
  #depth = 0;
  /** the connection failed inside the open transaction: nothing more may run in it (it is gone) until it ends */
  #transactionLost = false;
  /**
   * BEGIN, SAVEPOINT and RELEASE not sent yet: they travel with the next statement that is (one round trip to the
   * worker and one to the server instead of one each). They fail only with the connection or inside a transaction
   * already failed, and either way the next statement's caller gets that error, as it would its own.
   */
  #deferred: string[] = [];
  #closed = false;

  constructor(options: PgDatabaseOptions) {
    const queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_PG_QUERY_TIMEOUT_MS;
    const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_PG_CONNECT_TIMEOUT_MS;
    this.#waitMs = queryTimeoutMs + connectTimeoutMs + 5_000;
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    const data: PgHostData = {
      protocol: PG_BRIDGE_PROTOCOL,
      connectionString: options.connectionString,
      signal: this.#signal,
      port: port2,
      queryTimeoutMs,
      connectTimeoutMs,
      applicationName: options.applicationName ?? 'tokentap',
      readonly: options.readonly === true,
    };
    this.#worker = new Worker(pgHostWorkerUrl(), { workerData: data, transferList: [port2] });
    // the worker only ever runs while this thread waits on it: it must not keep the process alive
    this.#worker.unref();
    this.#port.unref();
  }

  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  prepare<BindParameters extends unknown[] | {} = unknown[], Result = unknown>(
    source: string,
  ): BindParameters extends unknown[] ? SqlStatement<BindParameters, Result> : SqlStatement<[BindParameters], Result> {
    this.#statements += 1;
    const statement: SqlStatement<unknown[], Result> = new PgStatement(this, `tt_${this.#statements}`, translatePlaceholders(source)) as never;
    return statement as never;
  }

  exec(source: string): this {
    this.request({ kind: 'exec', text: source });
    return this;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  transaction<F extends (...params: any[]) => unknown>(fn: F): SqlTransaction<F> {
    const run = (...args: unknown[]): unknown => this.#inTransaction(() => fn(...args));
    return Object.assign(run, { immediate: run, deferred: run }) as SqlTransaction<F>;
  }

  /** Sends one request and waits for its answer; a database error is thrown as a PgError. */
  request(message: Exclude<ToPgHost, { kind: 'close' }>): { rows: unknown[]; rowCount: number } {
    if (this.#closed) throw new TokentapError('STORE_OPEN_FAILED', { message: 'the PostgreSQL connection is closed' });
    // a statement after the loss would run on a new connection, outside the transaction its caller thinks it is in
    if (this.#transactionLost) throw new PgError('the PostgreSQL connection was lost in this transaction', 'PG_CONNECTION_LOST', true);
    const answer = this.#roundTrip(this.#withDeferred(message));
    if (!answer.ok) {
      const { message, code, connectionLost } = answer.error;
      if (connectionLost && this.#depth > 0) this.#transactionLost = true;
      // a connection that died without a code still needs one: the recorder tells passing failures by code alone
      throw new PgError(message, code ?? (connectionLost ? 'PG_CONNECTION_LOST' : null), connectionLost);
    }
    return answer;
  }

  close(): this {
    if (this.#closed) return this;
    try {
      this.#roundTrip({ kind: 'close' });
    } finally {
      this.#closed = true;
      this.#port.close();
    }
    return this;
  }

  #roundTrip(message: ToPgHost): FromPgHost {
    const id = ++this.#sequence;
    const deadline = performance.now() + this.#waitMs;
    Atomics.store(this.#signal, 0, 0);
    this.#worker.postMessage({ ...message, id } satisfies ToPgHost & { id: number });
    for (;;) {
      // the worker sets the signal, then notifies: when this thread saw the signal of the answer before without
      // waiting, that answer's notify may come now and wake this wait early, so a wake-up alone proves nothing
      while (Atomics.load(this.#signal, 0) === 0) {
        const left = deadline - performance.now();
        if (left <= 0 || Atomics.wait(this.#signal, 0, 0, left) === 'timed-out') this.#stuck();
      }
      const received = receiveMessageOnPort(this.#port)?.message as (FromPgHost & { id: number }) | undefined;
      if (received?.id === id) return received;
      // an answer is posted before its signal is set, so none here, or another one, is a broken worker
      this.#stuck(received === undefined ? 'answered nothing' : `answered request ${received.id} for ${id}`);
    }
  }

  /** The worker cannot be trusted with the next statement: this connection is closed. */
  #stuck(what?: string): never {
    this.#closed = true;
    void this.#worker.terminate();
    if (what !== undefined) throw new PgError(`the PostgreSQL worker ${what}`, 'PG_CONNECTION_LOST', true);
    // it should have timed the query out itself
    throw new PgError(`PostgreSQL did not answer within ${this.#waitMs} ms`, 'ETIMEDOUT', true);
  }

  #inTransaction<T>(work: () => T): T {
    const depth = this.#depth;
    this.#deferred.push(depth === 0 ? 'BEGIN' : `SAVEPOINT tt_${depth}`);
    this.#depth = depth + 1;
    try {
      const result = work();
      // a COMMIT is always sent and waited for: a transaction is committed only once the server says so
      if (depth === 0) this.request({ kind: 'exec', text: 'COMMIT' });
      else this.#deferred.push(`RELEASE SAVEPOINT tt_${depth}`);
      this.#depth = depth;
      return result;
    } catch (error) {
      this.#depth = depth;
      this.#rollback(depth);
      throw error;
    } finally {
      if (depth === 0) {
        this.#transactionLost = false;
        this.#deferred = [];
      }
    }
  }

  /** The message with the deferred statements before it: joined into an exec's text, or a query's prelude. */
  #withDeferred(message: Exclude<ToPgHost, { kind: 'close' }>): Exclude<ToPgHost, { kind: 'close' }> {
    if (this.#deferred.length === 0) return message;
    const prelude = this.#deferred.join('; ');
    this.#deferred = [];
    return message.kind === 'exec' ? { kind: 'exec', text: `${prelude}; ${message.text}` } : { ...message, prelude };
  }

  /** Undoes a failed (sub)transaction; on a lost connection there is nothing left to undo. */
  #rollback(depth: number): void {
    if (this.#transactionLost) return;
    try {
      this.request({ kind: 'exec', text: depth === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT tt_${depth}; RELEASE SAVEPOINT tt_${depth}` });
    } catch (error) {
      if (!(error instanceof PgError && error.connectionLost)) throw error;
    }
  }
}

class PgStatement {
  readonly #database: PgDatabase;
  readonly #name: string;
  readonly #statement: TranslatedStatement;
  #raw = false;
  #pluck = false;

  constructor(database: PgDatabase, name: string, statement: TranslatedStatement) {
    this.#database = database;
    this.#name = name;
    this.#statement = statement;
  }

  raw(toggle = true): this {
    this.#raw = toggle;
    return this;
  }

  pluck(toggle = true): this {
    this.#pluck = toggle;
    return this;
  }

  get(...params: unknown[]): unknown {
    return this.all(...params)[0];
  }

  all(...params: unknown[]): unknown[] {
    const { rows } = this.#query(params);
    return rows.map((row) => (this.#pluck ? (row as unknown[])[0] : row));
  }

  run(...params: unknown[]): SqlRunResult {
    const { rowCount } = this.#query(params);
    return { changes: rowCount, lastInsertRowid: 0 };
  }

  #query(params: unknown[]): { rows: unknown[]; rowCount: number } {
    const answer = this.#database.request({
      kind: 'query',
      name: this.#name,
      text: this.#statement.text,
      values: assertTextStorable(this.#values(params)),
      rowMode: this.#raw || this.#pluck ? 'array' : null,
    });
    return { rows: answer.rows.map(toBuffers), rowCount: answer.rowCount };
  }

  #values(params: unknown[]): unknown[] {
    const { names, positional } = this.#statement;
    if (names === null) {
      if (params.length !== positional) throw new RangeError(`the statement takes ${positional} parameters, ${params.length} given`);
      return params;
    }
    const named = (params[0] ?? {}) as Record<string, unknown>;
    return names.map((name) => {
      if (!(name in named)) throw new RangeError(`missing named parameter "${name}"`);
      return named[name];
    });
  }
}

/**
 * PostgreSQL's text cannot hold U+0000, and the server answers one with an encoding error (22021) that says neither
 * which value nor why. The store's texts and ids never hold one (well-formed-text.ts, storable-id.ts), so one here is a
 * caller's key (a lookup by such an id): refused as bad input, never sent. SQLite would find nothing for it.
 */
function assertTextStorable(values: unknown[]): unknown[] {
  for (const value of values) {
    if (typeof value === 'string' && value.includes('\u0000')) {
      throw new TokentapError('STORE_INVALID_INPUT', {
        message: `PostgreSQL's text cannot hold U+0000 (NUL): ${JSON.stringify(value.slice(0, 140))}`,
      });
    }
  }
  return values;
}

/** bytea values cross threads as Uint8Arrays: hand them on as Buffers, as better-sqlite3 does. */
function toBuffers(row: unknown): unknown {
  const values = Array.isArray(row) ? row : Object.values(row as object);
  if (!values.some((value) => value instanceof Uint8Array)) return row;
  if (Array.isArray(row)) return row.map(toBuffer);
  return Object.fromEntries(Object.entries(row as object).map(([key, value]) => [key, toBuffer(value)]));
}

function toBuffer(value: unknown): unknown {
  return value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value;
}

/** The compiled worker: next to this module when built; under dist/ when run from sources (vitest), as record-worker-url.ts. */
function pgHostWorkerUrl(): URL {
  const moduleUrl = import.meta.url;
  const compiled = moduleUrl.endsWith('.ts')
    ? new URL('../../dist/store/postgres/pg-host-worker.js', moduleUrl)
    : new URL('./pg-host-worker.js', moduleUrl);
  if (!existsSync(fileURLToPath(compiled))) {
    throw new TokentapError('STORE_OPEN_FAILED', {
      message: `the PostgreSQL worker ${fileURLToPath(compiled)} is missing: build first (npm run build)`,
    });
  }
  return compiled;
}
