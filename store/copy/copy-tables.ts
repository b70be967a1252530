/**
 * The store's tables as `tokentap migrate --from --to` copies them (docs/scale-out.md, "Moving a SQLite store to
 * PostgreSQL"): in dependency order, so every row a foreign key names was written before the row naming it, each
 * paged by a key that a resumed copy continues after.
 */

/** How a table's page key is written down between runs (tokentap_copy_progress.last_key is text). */
export type CopyKeyType = 'integer' | 'blob' | 'text';

export interface CopyTable {
  name: string;
  /** the column pages are read in order of: SQLite's rowid, or the primary key of a WITHOUT ROWID table */
  key: string;
  keyType: CopyKeyType;
  /** the PostgreSQL column that takes SQLite's rowid: sessions.position, the order sessions were created in */
  rowidColumn?: string;
  /**
   * a column naming another row of this table by `id`. A call's prompt parent is usually an earlier call, but may be
   * one that began later and finished first (prompt-delta.ts picks among the newest by seq, finished or not when the
   * child began): such a parent is written with the page that needs it, and skipped when its own page comes.
   */
  selfReference?: string;
}

/**
 * Every table up to schema 7, parents before children. A table the source has and this list lacks stops the copy; one
 * neither side has is not in their schema yet (copy-tables of a newer schema than the two share) and is left out.
 */
export const COPY_TABLES: readonly CopyTable[] = [
  { name: 'groups', key: 'rowid', keyType: 'integer' },
  { name: 'sessions', key: 'rowid', keyType: 'integer', rowidColumn: 'position' },
  { name: 'session_keys', key: 'key_hash', keyType: 'blob' },
  { name: 'blobs', key: 'rowid', keyType: 'integer' },
  { name: 'blob_lists', key: 'rowid', keyType: 'integer', selfReference: 'previous_id' },
  { name: 'calls', key: 'rowid', keyType: 'integer', selfReference: 'prompt_parent_id' },
  { name: 'call_bodies', key: 'rowid', keyType: 'integer' },
  { name: 'rewards', key: 'rowid', keyType: 'integer' },
  { name: 'policy_versions', key: 'rowid', keyType: 'integer' },
  { name: 'group_acks', key: 'group_id', keyType: 'text' },
  { name: 'gateway_instances', key: 'rowid', keyType: 'integer' },
  { name: 'batch_leases', key: 'batch_id', keyType: 'text' },
  { name: 'leased_groups', key: 'group_id', keyType: 'text' },
];

/** A page key: SQLite's rowid, a key hash, a group id. */
export type CopyKey = number | Buffer | string;

/**
 * A key as tokentap_copy_progress keeps it.
 *
 * @example encodeCopyKey({ ...table, keyType: 'blob' }, Buffer.from([1, 255])) // '01ff'
 */
export function encodeCopyKey(table: CopyTable, key: CopyKey): string {
  if (table.keyType === 'blob') return (key as Buffer).toString('hex');
  return String(key);
}

/** The key a stored progress row names, to read the rows after it. */
export function decodeCopyKey(table: CopyTable, text: string): CopyKey {
  if (table.keyType === 'integer') return Number(text);
  if (table.keyType === 'blob') return Buffer.from(text, 'hex');
  return text;
}
