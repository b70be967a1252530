import Database from 'better-sqlite3';

/** A reward row written past the store, as an older tokentap or a hand edit could have left it. */
export interface RawReward {
  sessionId: string;
  callId?: string | null;
  /** bound as a double: Infinity and 1e300 are stored as such (NaN cannot be: SQLite binds it as NULL) */
  value: number;
  /** the components column's JSON text as is, e.g. '{"a":1e999}' (which parses to Infinity) */
  componentsJson?: string | null;
}

/**
 * Writes reward rows with a raw better-sqlite3 connection, past every check of the store: the database an export
 * must survive (issue 12). Each row is the newest of its target, so it is the current reward. The gateway may hold
 * the file open meanwhile (WAL: a second connection writes between its transactions).
 *
 * @example poisonRewards(dbPath, [{ sessionId: 'r-1', value: Infinity }]);
 */
export function poisonRewards(dbPath: string, rewards: RawReward[]): void {
  const database = new Database(dbPath);
  try {
    const insert = database.prepare(
      `INSERT INTO rewards (session_id, call_id, value, components, source, created_at) VALUES (?, ?, ?, ?, 'admin', ?)`,
    );
    for (const reward of rewards) insert.run(reward.sessionId, reward.callId ?? null, reward.value, reward.componentsJson ?? null, Date.now());
  } finally {
    database.close();
  }
}

/**
 * Overwrites the stored value of every reward of a session with a raw UPDATE (the issue's `Inf` left by the attack).
 *
 * @example setRawRewardValue(dbPath, 'r-1', Infinity);
 */
export function setRawRewardValue(dbPath: string, sessionId: string, value: number): void {
  const database = new Database(dbPath);
  try {
    database.prepare(`UPDATE rewards SET value = ? WHERE session_id = ?`).run(value, sessionId);
  } finally {
    database.close();
  }
}
