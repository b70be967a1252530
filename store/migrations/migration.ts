import type Database from 'better-sqlite3';

/** One numbered schema step. SQL lives in TS strings so `tsc` ships it with the build. */
export interface Migration {
  /** the `PRAGMA user_version` the database has once this step ran; 1, 2, 3... without gaps */
  version: number;
  name: string;
  sql: string;
  /**
   * SQLite only: rows rewritten in code after `sql`, in the same transaction, where SQL alone cannot say the change
   * (SQLite's text functions stop at or pass over U+0000).
   */
  rewrite?: (database: Database.Database) => void;
}
