/**
 * The part of a database connection the store's query modules use, shaped after better-sqlite3's (which satisfies it
 * as it is): `prepare` a statement once, then `get` / `all` / `run` it; `transaction(fn)` wraps a function in a
 * transaction (a savepoint when nested). PostgreSQL implements it in postgres/pg-database.ts, synchronously, over a
 * connection held by a worker thread. Queries that differ between the two engines pick their SQL with `dialectOf`.
 *
 * @example
 * const selectSeq = database.prepare<[string], { seq: number }>(`SELECT max(seq) AS seq FROM calls WHERE session_id = ?`);
 * const seq = selectSeq.get('s-1')?.seq;
 */
export type SqlDialect = 'sqlite' | 'postgres';

export interface SqlRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

// The generics mirror better-sqlite3's own (positional parameters as a tuple, named ones as one object), so its
// connection is a SqlDatabase as it is.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyArguments = (...params: any[]) => unknown;
type ArgumentsOf<F extends AnyArguments> = F extends (...args: infer A) => unknown ? A : never;

export interface SqlStatement<BindParameters extends unknown[] = unknown[], Result = unknown> {
  get(...params: BindParameters): Result | undefined;
  all(...params: BindParameters): Result[];
  run(...params: BindParameters): SqlRunResult;
  /** rows as arrays of column values in SELECT order (better-sqlite3's raw mode) */
  raw(toggleState?: boolean): this;
  /** the first column of each row alone */
  pluck(toggleState?: boolean): this;
}

/** A transaction-wrapped function; `immediate` takes SQLite's write lock first (PostgreSQL locks rows as it goes). */
export interface SqlTransaction<F extends AnyArguments> {
  (...params: ArgumentsOf<F>): ReturnType<F>;
  immediate(...params: ArgumentsOf<F>): ReturnType<F>;
  /** SQLite's deferred transaction (a read snapshot from the first read); PostgreSQL's plain one */
  deferred(...params: ArgumentsOf<F>): ReturnType<F>;
}

export interface SqlDatabase {
  /** inside a transaction (better-sqlite3's own property) */
  readonly inTransaction: boolean;
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  prepare<BindParameters extends unknown[] | {} = unknown[], Result = unknown>(
    source: string,
  ): BindParameters extends unknown[] ? SqlStatement<BindParameters, Result> : SqlStatement<[BindParameters], Result>;
  transaction<F extends AnyArguments>(fn: F): SqlTransaction<F>;
  exec(source: string): unknown;
  close(): unknown;
}

/**
 * Which engine a connection speaks: PostgreSQL's connection says so (`dialect`), better-sqlite3's has no such field.
 *
 * @example const sql = dialectOf(database) === 'postgres' ? `... ON CONFLICT DO NOTHING` : `INSERT OR IGNORE ...`;
 */
export function dialectOf(database: SqlDatabase): SqlDialect {
  return (database as { dialect?: SqlDialect }).dialect ?? 'sqlite';
}

/**
 * The SQL of a statement for the connection's engine, for the few that differ.
 *
 * @example database.prepare(sqlFor(database, { sqlite: `INSERT OR IGNORE ...`, postgres: `INSERT ... ON CONFLICT DO NOTHING` }))
 */
export function sqlFor(database: SqlDatabase, sources: Record<SqlDialect, string>): string {
  return sources[dialectOf(database)];
}

/**
 * An `INSERT OR IGNORE INTO ...` statement (SQLite) as the connection's engine writes it: PostgreSQL's
 * `INSERT INTO ... ON CONFLICT DO NOTHING`. Either way `changes` is 0 when the row existed.
 *
 * @example database.prepare(ignoreConflicts(database, `INSERT OR IGNORE INTO groups (id) VALUES (?)`))
 */
export function ignoreConflicts(database: SqlDatabase, source: string): string {
  if (dialectOf(database) === 'sqlite') return source;
  return `${source.replace(/INSERT OR IGNORE INTO/i, 'INSERT INTO').trimEnd()} ON CONFLICT DO NOTHING`;
}

/**
 * `COLUMN` (text) is one of the strings of a JSON array (a bound parameter holding JSON text), written so that each
 * engine looks the strings up in the column's index. SQLite plans `IN (SELECT value FROM json_each(…))` as lookups;
 * PostgreSQL plans the same `IN` as a semi join that it estimates at 100 strings, and a seq scan of the whole table
 * is then its cheapest plan up to tens of thousands of rows (every export page read all calls: a store's export
 * slowed with the square of its size). `= ANY (ARRAY(…))` gives it an array to probe the index with.
 *
 * @example `SELECT * FROM calls WHERE ${inJsonArray(database, 'session_id', '?')} ORDER BY session_id, seq`
 */
export function inJsonArray(database: SqlDatabase, column: string, expression: string): string {
  return dialectOf(database) === 'sqlite'
    ? `${column} IN (SELECT value FROM json_each(${expression}))`
    : `${column} = ANY (ARRAY(SELECT jsonb_array_elements_text((${expression})::jsonb)))`;
}

/**
 * A JSON array (a column or a bound parameter holding JSON text) as rows with one column, `ALIAS.value`: SQLite's
 * `json_each`, PostgreSQL's `jsonb_array_elements_text`.
 *
 * @example `... WHERE id IN (SELECT value FROM ${jsonArrayElements(database, '@exclude', 'excluded')})`
 */
export function jsonArrayElements(database: SqlDatabase, expression: string, alias: string): string {
  return dialectOf(database) === 'sqlite'
    ? `json_each(${expression}) AS ${alias}`
    : `jsonb_array_elements_text((${expression})::jsonb) AS ${alias}(value)`;
}

/**
 * An insert into a table with an integer `id` key, as a function returning the new row's id, or null when the row
 * existed already (`INSERT OR IGNORE`). SQLite reports `lastInsertRowid`; PostgreSQL returns the id (`RETURNING`).
 * Gateways on one PostgreSQL database insert the same content-addressed row at once: the conflict leaves one row,
 * and the loser reads its id back (null here, then a select), never fails its transaction.
 *
 * @example const insertBlob = prepareInsert<[Buffer, Buffer]>(database, `INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)`);
 */
export function prepareInsert<BindParameters extends unknown[]>(database: SqlDatabase, source: string): (...params: BindParameters) => number | null {
  if (dialectOf(database) === 'sqlite') {
    const statement = database.prepare<BindParameters>(source);
    return (...params) => {
      const result = statement.run(...params);
      return result.changes === 0 ? null : Number(result.lastInsertRowid);
    };
  }
  const statement = database.prepare<BindParameters, { id: number }>(`${ignoreConflicts(database, source)} RETURNING id`);
  return (...params) => statement.get(...params)?.id ?? null;
}

/**
 * A write whose result nobody reads (no RETURNING; `changes` unused), as a function. PostgreSQL's connection queues it
 * inside a transaction and sends it with the next statement that waits for an answer, or the COMMIT (one round trip
 * for several: pg-database.ts); its failure surfaces there, with its own error, and fails the (sub)transaction it ran
 * in. SQLite runs it at once. Only for statements whose every caller ignores the result: one that reads `changes`
 * keeps `run`.
 *
 * @example const insertBodies = queuedRun(database.prepare<[string, Buffer]>(`INSERT INTO call_bodies (call_id, request_body) VALUES (?, ?)`));
 */
export function queuedRun<BindParameters extends unknown[]>(statement: SqlStatement<BindParameters>): (...params: BindParameters) => void {
  const { queue } = statement as SqlStatement<BindParameters> & { queue?: (...params: BindParameters) => void };
  if (typeof queue === 'function') return queue.bind(statement);
  return (...params) => {
    statement.run(...params);
  };
}

/**
 * A read whose rows are wanted a little later, as a function returning a function that gives them. PostgreSQL's
 * connection queues it inside a transaction and sends it with the next statement that waits for an answer (two reads
 * for one round trip); asking for the rows before that sends it then. SQLite reads at once.
 *
 * @example
 * const candidates = queuedAll(selectCandidates)(callId); // travels with the next statement
 * const state = selectState.get(callId); // one round trip for both
 * const rows = candidates();
 */
export function queuedAll<BindParameters extends unknown[], Result>(
  statement: SqlStatement<BindParameters, Result>,
): (...params: BindParameters) => () => Result[] {
  const { queueAll } = statement as SqlStatement<BindParameters, Result> & { queueAll?: (...params: BindParameters) => () => Result[] };
  if (typeof queueAll === 'function') return queueAll.bind(statement);
  return (...params) => {
    const rows = statement.all(...params);
    return () => rows;
  };
}

/**
 * A bound parameter with its type said, where PostgreSQL cannot infer one (`@since IS NULL` alone gives it none);
 * SQLite takes the parameter as it is.
 *
 * @example `(${typed(database, '@since', 'double precision')} IS NULL OR created_at >= @since)`
 */
export function typed(database: SqlDatabase, parameter: string, type: string): string {
  return dialectOf(database) === 'sqlite' ? parameter : `CAST(${parameter} AS ${type})`;
}
