import type Database from 'better-sqlite3';

/** How long a writer waits for another connection's write lock before SQLITE_BUSY. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Per-connection settings, applied on every open.
 * - `journal_mode=WAL`: readers (CLI, reconstruct) never block the recorder, nor it them.
 * - `synchronous=NORMAL`: in WAL mode a commit is in the WAL file once `commit` returns, so a killed
 *   process loses nothing; only an OS crash or power cut can drop the last transactions, and the
 *   file stays consistent either way (https://www.sqlite.org/pragma.html#pragma_synchronous).
 * - `foreign_keys=ON`: SQLite leaves it off by default, per connection.
 * - `busy_timeout`: a second process writing the same file waits instead of failing at once.
 * A read-only connection cannot change the journal mode (it is stored in the file), so it sets only the rest.
 * Switching a file to WAL takes its exclusive lock while holding a shared one, and SQLite skips the busy
 * handler there (it could deadlock) and answers SQLITE_BUSY at once when another process holds a write
 * lock, as a gateway migrating the same new file does: `switchToWal` retries within the busy timeout.
 *
 * @example
 * configureConnection(new Database(path), { readonly: false });
 */
export function configureConnection(database: Database.Database, options: { readonly: boolean }): void {
  database.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
  database.pragma('foreign_keys = ON');
  if (options.readonly) return;
  switchToWal(database);
  database.pragma('synchronous = NORMAL');
}

const RETRY_PAUSE_MS = 5;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** Leaves the file in WAL mode; a file already in it needs no lock beyond a read. */
function switchToWal(database: Database.Database): void {
  if (database.pragma('journal_mode', { simple: true }) === 'wal') return;
  const deadline = Date.now() + DEFAULT_BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, RETRY_PAUSE_MS); // opening is synchronous: block this thread for the pause
    }
  }
}
