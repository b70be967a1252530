import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { SqlRunResult } from '../sql/sql-database.js';
import type { PgStep } from './pg-bridge-protocol.js';
import type { TranslatedStatement } from './translate-placeholders.js';

/** What a statement needs of its connection (pg-database.ts). */
export interface PgStatementConnection {
  request(step: PgStep): { rows: unknown[]; rowCount: number };
  enqueue(step: PgStep): void;
  enqueueRead(step: PgStep): () => { rows: unknown[]; rowCount: number };
}

/**
 * One prepared statement of a PostgreSQL connection, with better-sqlite3's Statement shape (`get`, `all`, `run`, `raw`,
 * `pluck`), plus `queue` for a write whose result nobody reads (sql-database.ts `queuedRun`).
 *
 * @example new PgStatement(connection, 'tt_1', translatePlaceholders('SELECT seq FROM calls WHERE id = ?')).get('c-1')
 */
export class PgStatement {
  readonly #database: PgStatementConnection;
  readonly #name: string;
  readonly #statement: TranslatedStatement;
  #raw = false;
  #pluck = false;

  constructor(database: PgStatementConnection, name: string, statement: TranslatedStatement) {
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
    return this.#rows(this.#database.request(this.#step(params)).rows);
  }

  run(...params: unknown[]): SqlRunResult {
    const { rowCount } = this.#database.request(this.#step(params));
    return { changes: rowCount, lastInsertRowid: 0 };
  }

  /** A write whose result nobody reads: sent with the connection's next statement that is waited for (PgDatabase). */
  queue(...params: unknown[]): void {
    this.#database.enqueue(this.#step(params));
  }

  /** The rows `all` would give, read with the connection's next statement that is waited for (PgDatabase). */
  queueAll(...params: unknown[]): () => unknown[] {
    const answer = this.#database.enqueueRead(this.#step(params));
    return () => this.#rows(answer().rows);
  }

  #rows(rows: unknown[]): unknown[] {
    return rows.map((row) => (this.#pluck ? (toBuffers(row) as unknown[])[0] : toBuffers(row)));
  }

  #step(params: unknown[]): PgStep {
    const values = assertTextStorable(this.#values(params));
    return { kind: 'query', name: this.#name, text: this.#statement.text, values, rowMode: this.#raw || this.#pluck ? 'array' : null };
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
