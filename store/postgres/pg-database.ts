import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { compiledWorkerUrl } from '../../core/worker/compiled-worker-url.js';
import type { SqlDatabase, SqlStatement, SqlTransaction } from '../sql/sql-database.js';
import { PG_BRIDGE_PROTOCOL, type FromPgHost, type PgHostData, type PgOutcome, type PgStep, type ToPgHost } from './pg-bridge-protocol.js';
import { PgStatement } from './pg-statement.js';
import { translatePlaceholders } from './translate-placeholders.js';

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
 * A wait costs about a millisecond of wall time on a busy machine (the worker, then the server), so what needs no
 * answer does not wait: BEGIN, SAVEPOINT, RELEASE and the writes whose result nobody reads (`queue` on a statement,
 * inside a transaction; sql-database.ts `queuedRun`) wait on the connection and travel with the next statement that
 * needs an answer, or the COMMIT, all sent back to back. A queued statement that failed fails the scope it belongs to
 * (the savepoint it ran in, or the one it was released into): the statement whose answer brought the failure throws
 * it, as does every later one inside that scope, and the scope itself throws it when it ends, rolled back; a
 * transaction whose queued write failed never commits. Nothing is committed before COMMIT's own answer.
 *
 * @example
 * const database = new PgDatabase({ connectionString: 'postgres://tt@127.0.0.1:5432/tokentap' });
 * database.prepare<[string], { n: number }>('SELECT count(*) AS n FROM calls WHERE session_id = ?').get('s-1');
 */
type PgAnswer = PgOutcome & { ok: true };

export class PgDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal = new Int32Array(new SharedArrayBuffer(4));
  readonly #waitMs: number;
  #statements = 0;
  /** the number of the request in flight, echoed by its answer */
  #sequence = 0;
  /** open transaction scopes: 1 inside a transaction, 2 inside its first savepoint, ... */
  #depth = 0;
  /** the connection failed inside the open transaction: nothing more may run in it (it is gone) until it ends */
  #transactionLost = false;
  /** statements not sent yet, each with the scope whose failure it is (see `#fail`) */
  #queue: Array<{ step: PgStep; scope: number; answered?: (answer: PgAnswer) => void }> = [];
  /** a failed statement's error and the scope it fails: every statement inside that scope throws it until it is rolled back */
  #failure: { error: PgError; scope: number } | null = null;
  /** the open transaction's BEGIN has been sent: what follows may run only on the connection that got it */
  #begun = false;
  #closed = false;
  readonly #sent = { statements: 0, roundTrips: 0 };

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

  /** Statements sent to the server, and round trips to the worker (each waited for), since the connection opened. */
  get sent(): { statements: number; roundTrips: number } {
    return { ...this.#sent };
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

  /** Sends one statement (after those queued) and waits for its answer; a database error is thrown as a PgError. */
  request(step: PgStep): PgAnswer {
    this.#assertUsable();
    this.#queue.push({ step, scope: this.#depth });
    return this.#flush();
  }

  /**
   * Queues a statement whose answer nobody reads: inside a transaction it is sent with the next one that is waited
   * for; outside, at once (there is no later commit to carry it, nor to fail).
   */
  enqueue(step: PgStep): void {
    if (this.#depth === 0) {
      this.request(step);
      return;
    }
    this.#assertUsable();
    this.#queue.push({ step, scope: this.#depth });
  }

  /**
   * Queues a read whose answer is wanted later: it travels with the next statement waited for (its answer kept), or,
   * when the returned function is called before that, the queue is sent then. Outside a transaction it runs at once.
   */
  enqueueRead(step: PgStep): () => PgAnswer {
    if (this.#depth === 0) {
      const answer = this.request(step);
      return () => answer;
    }
    this.#assertUsable();
    let answer: PgAnswer | undefined;
    const entry = { step, scope: this.#depth, answered: (given: PgAnswer) => (answer = given) };
    this.#queue.push(entry);
    return () => {
      if (answer === undefined && this.#queue.includes(entry)) {
        this.#assertUsable();
        this.#flush(); // answers every read it carries, this one included
      }
      if (answer === undefined)
        throw new TokentapError('STORE_INVALID_INPUT', { message: 'a queued read was asked for after its transaction ended' });
      return answer;
    };
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

  #assertUsable(): void {
    if (this.#closed) throw new TokentapError('STORE_OPEN_FAILED', { message: 'the PostgreSQL connection is closed' });
    // a statement after the loss would run on a new connection, outside the transaction its caller thinks it is in
    if (this.#transactionLost) throw new PgError('the PostgreSQL connection was lost in this transaction', 'PG_CONNECTION_LOST', true);
    if (this.#failure !== null) throw this.#failure.error;
  }

  /** Sends the queue and waits; returns the last statement's answer, or throws the first failure (see `#fail`). */
  #flush(): PgAnswer {
    const queued = this.#queue;
    this.#queue = [];
    const outcomes = this.#send(queued.map((entry) => entry.step));
    // a read of an outer scope keeps its answer when a statement of an inner one fails (that scope alone is rolled back)
    answerReads(queued, outcomes);
    const failed = outcomes.findIndex((outcome) => !outcome.ok);
    if (failed >= 0) throw this.#fail(outcomes[failed] as PgOutcome & { ok: false }, queued[failed]?.scope ?? this.#depth);
    return outcomes[outcomes.length - 1] as PgAnswer;
  }

  #send(steps: PgStep[]): PgOutcome[] {
    this.#sent.statements += steps.length;
    const continues = this.#begun;
    if (this.#depth > 0) this.#begun = true;
    const { outcomes } = this.#roundTrip({ kind: 'steps', steps, continues });
    if (outcomes.length !== steps.length) this.#stuck(`answered ${outcomes.length} statements of ${steps.length}`);
    return outcomes;
  }

  /**
   * The error of a failed statement, which fails `scope`: a lost connection takes the whole transaction with it; any
   * other failure leaves the server's transaction aborted until that scope's savepoint (or the transaction) is rolled
   * back, so every statement inside it throws the same error until then.
   */
  #fail(outcome: PgOutcome & { ok: false }, scope: number): PgError {
    const { message, code, connectionLost } = outcome.error;
    // a connection that died without a code still needs one: the recorder tells passing failures by code alone
    const error = new PgError(message, code ?? (connectionLost ? 'PG_CONNECTION_LOST' : null), connectionLost);
    if (this.#depth === 0) return error;
    if (connectionLost) this.#transactionLost = true;
    else if (this.#failure === null || scope < this.#failure.scope) this.#failure = { error, scope: Math.max(1, scope) };
    return error;
  }

  #roundTrip(message: ToPgHost): FromPgHost {
    const id = ++this.#sequence;
    this.#sent.roundTrips += 1;
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
    const outer = this.#depth;
    const scope = outer + 1;
    // a failed BEGIN leaves no transaction, a failed SAVEPOINT no savepoint: the scope around them fails. Inside a
    // failed scope nothing is sent until it is rolled back (which undoes this one too): its first statement throws
    if (this.#failure === null)
      this.#queue.push({ step: { kind: 'exec', text: outer === 0 ? 'BEGIN' : `SAVEPOINT tt_${outer}` }, scope: Math.max(1, outer) });
    this.#depth = scope;
    try {
      const result = work();
      // a statement of this scope failed (its caller may have caught that): the scope fails
      if (this.#failure !== null) throw this.#failure.error;
      // a COMMIT is always sent and waited for: a transaction is committed only once the server says so
      if (outer === 0) this.request({ kind: 'exec', text: 'COMMIT' });
      else this.#release(outer);
      this.#depth = outer;
      return result;
    } catch (error) {
      this.#depth = outer;
      this.#abandon(scope);
      throw error;
    } finally {
      if (outer === 0) {
        this.#transactionLost = false;
        this.#begun = false;
        this.#failure = null;
        this.#queue = [];
      }
    }
  }

  /** Ends the savepoint of the scope inside `outer`: what it queued fails `outer` from now on, as its own statements would. */
  #release(outer: number): void {
    this.#queue.push({ step: { kind: 'exec', text: `RELEASE SAVEPOINT tt_${outer}` }, scope: outer });
    for (const entry of this.#queue) entry.scope = Math.min(entry.scope, outer);
  }

  /**
   * Rolls a failed scope back. Inside a scope that failed already (an outer one), nothing: this one's savepoint may
   * never have been made, and rolling the failed one back undoes this one too.
   */
  #abandon(scope: number): void {
    if (this.#failure !== null && this.#failure.scope < scope) return;
    this.#failure = null;
    // on a lost connection there is nothing left to undo (a stuck worker closed it)
    if (this.#transactionLost || this.#closed) return;
    const queued = this.#queue;
    this.#queue = [];
    const savepoint = `tt_${scope - 1}`;
    const rollback: PgStep = { kind: 'exec', text: scope === 1 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}; RELEASE SAVEPOINT ${savepoint}` };
    // the statements queued go first: this scope's are undone with it; an outer scope's that failed fail that scope
    const outcomes = this.#send([...queued.map((entry) => entry.step), rollback]);
    answerReads(queued, outcomes);
    const outerFailed = queued.findIndex((entry, index) => entry.scope < scope && !outcomes[index]?.ok);
    if (outerFailed >= 0) {
      this.#fail(outcomes[outerFailed] as PgOutcome & { ok: false }, queued[outerFailed]?.scope as number);
      return;
    }
    const last = outcomes[outcomes.length - 1] as PgOutcome;
    if (last.ok) return;
    const error = new PgError(last.error.message, last.error.code, last.error.connectionLost);
    if (last.error.connectionLost) {
      if (this.#depth > 0) this.#transactionLost = true;
      return;
    }
    throw error;
  }
}

/** Gives each queued read that succeeded its answer (a failed one stays unanswered: asking for it throws). */
function answerReads(queued: ReadonlyArray<{ answered?: (answer: PgAnswer) => void }>, outcomes: readonly PgOutcome[]): void {
  queued.forEach((entry, index) => {
    const outcome = outcomes[index];
    if (outcome?.ok === true) entry.answered?.(outcome);
  });
}

/** The compiled worker (core/worker/compiled-worker-url.ts); a missing one is a store that cannot open. */
function pgHostWorkerUrl(): URL {
  const compiled = compiledWorkerUrl(import.meta.url, 'store/postgres', 'pg-host-worker');
  if (compiled === null) {
    throw new TokentapError('STORE_OPEN_FAILED', { message: 'the PostgreSQL worker pg-host-worker.js is missing: build first (npm run build)' });
  }
  return compiled;
}
