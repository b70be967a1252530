/** One numbered schema step. SQL lives in TS strings so `tsc` ships it with the build. */
export interface Migration {
  /** the `PRAGMA user_version` the database has once this step ran; 1, 2, 3... without gaps */
  version: number;
  name: string;
  sql: string;
}
