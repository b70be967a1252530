import { createHash } from 'node:crypto';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { SqlDatabase } from '../sql/sql-database.js';
import type { Store } from '../types.js';
import { digestStore, type DigestEntry } from './store-digest.js';

/** What a verified copy holds: its calls and sessions, and one digest over every entry of the walk. */
export interface CopyVerification {
  calls: number;
  sessions: number;
  groups: number;
  /** sha256 (hex) over the digests of every group, session and call, in walk order: equal on both sides */
  digest: string;
}

/**
 * Compares the copy with its source through the Store contract (store-digest.ts), walking both at once: the first
 * group, session or call whose digest differs, or that one side has and the other not, fails the copy
 * (STORE_COPY_MISMATCH) naming it. `onSession` counts the sessions compared, for a progress bar.
 *
 * @example const { digest, calls } = compareStores(sqliteStore, pgStore);
 */
export function compareStores(source: Store, target: Store, onSession: (done: number) => void = () => {}): CopyVerification {
  const copied = digestStore(target);
  const total = createHash('sha256');
  const counts = { calls: 0, sessions: 0, groups: 0 };
  for (const expected of digestStore(source)) {
    const found = copied.next();
    const actual = found.done === true ? null : found.value;
    if (actual === null || actual.kind !== expected.kind || actual.id !== expected.id || actual.digest !== expected.digest) {
      throw mismatch(`${describe(expected)} ${actual === null ? 'is missing from the copy' : differs(expected, actual)}`);
    }
    total.update(expected.digest);
    if (expected.kind === 'call') counts.calls += 1;
    else if (expected.kind === 'group') counts.groups += 1;
    else {
      counts.sessions += 1;
      onSession(counts.sessions);
    }
  }
  const extra = copied.next();
  if (extra.done !== true) throw mismatch(`the copy holds ${describe(extra.value)}, which the source does not`);
  return { ...counts, digest: total.digest('hex') };
}

/**
 * Each table's row count on both sides; the first table that differs fails the copy.
 *
 * @example assertSameRowCounts(sqliteDatabase, pgDatabase, ['groups', 'sessions']) // [{ name: 'groups', rows: 2 }, ...]
 */
export function assertSameRowCounts(source: SqlDatabase, target: SqlDatabase, tables: readonly string[]): Array<{ name: string; rows: number }> {
  return tables.map((name) => {
    const rows = countRows(source, name);
    const copied = countRows(target, name);
    if (copied !== rows) throw mismatch(`the table ${name} has ${rows} rows in the source and ${copied} in the copy`);
    return { name, rows };
  });
}

/** A table's rows. */
export function countRows(database: SqlDatabase, table: string): number {
  return (database.prepare<[], { rows: number }>(`SELECT count(*) AS rows FROM "${table}"`).get() as { rows: number }).rows;
}

function describe(entry: DigestEntry): string {
  return entry.kind === 'call' ? `the call ${entry.id} (session ${entry.sessionId})` : `the ${entry.kind} ${entry.id}`;
}

function differs(expected: DigestEntry, actual: DigestEntry): string {
  if (actual.kind === expected.kind && actual.id === expected.id) return 'differs in the copy';
  return `is where the copy has ${describe(actual)}`;
}

function mismatch(message: string): TokentapError {
  return new TokentapError('STORE_COPY_MISMATCH', { message: `the copy does not match its source: ${message}` });
}
