import { hash as oneShotHash } from 'node:crypto';
import { prepareInsert, type SqlDatabase } from './sql/sql-database.js';
import { BoundedLru } from './bounded-lru.js';
import { compressText, decompressText } from './compress-json.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * Content-addressed storage for the parts of bodies (see body-store.ts): each distinct JSON text is
 * one `blobs` row keyed by its sha256, deflated; an array of parts is a chain of `blob_lists` cells,
 * one per prefix, keyed by a hash over the whole prefix. A history that grows by two messages a turn
 * then adds two blobs and two cells a turn, however often it is resent.
 */

/** A JSON text and the sha256 of its UTF-8 bytes: the unit stored once. */
export interface JsonPart {
  text: string;
  hash: Buffer;
}

export interface BlobStore {
  /** Stores the part unless a blob with its hash exists; returns the blob's row id. */
  writeBlob(part: JsonPart): number;
  /** Stores the parts as a list, sharing every prefix already stored; returns the list's hash (hex). */
  writeList(parts: readonly JsonPart[]): string;
  readBlob(hash: string): unknown;
  readList(hash: string): unknown[];
}

/**
 * @example
 * const blobs = createBlobStore(database);
 * const listHash = blobs.writeList(messages.map((message) => toJsonPartOfText(JSON.stringify(message))));
 */
export function createBlobStore(database: SqlDatabase): BlobStore {
  const selectBlobId = database.prepare<[Buffer], { id: number }>(`SELECT id FROM blobs WHERE hash = ?`);
  const selectBlobData = database.prepare<[Buffer], { data: Buffer }>(`SELECT data FROM blobs WHERE hash = ?`);
  const insertBlob = prepareInsert<[Buffer, Buffer]>(database, `INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)`);
  const selectListId = database.prepare<[Buffer], { id: number }>(`SELECT id FROM blob_lists WHERE hash = ?`);
  const insertList = prepareInsert<[Buffer, number | null, number, number]>(
    database,
    `INSERT OR IGNORE INTO blob_lists (hash, previous_id, blob_id, length) VALUES (?, ?, ?, ?)`,
  );
  // A recursive CTE walks the list iteratively inside SQLite: one statement however long the history.
  const selectListHashes = database.prepare<[Buffer], { length: number; hash: Buffer }>(
    `WITH RECURSIVE chain (previous_id, blob_id, length) AS (
       SELECT previous_id, blob_id, length FROM blob_lists WHERE hash = ?
       UNION ALL
       SELECT blob_lists.previous_id, blob_lists.blob_id, blob_lists.length
         FROM blob_lists JOIN chain ON blob_lists.id = chain.previous_id
     )
     SELECT chain.length, blobs.hash FROM chain JOIN blobs ON blobs.id = chain.blob_id ORDER BY chain.length`,
  );
  const texts = new BoundedLru<string>(DEFAULT_BLOB_TEXT_CACHE_CHARS, (text) => text.length);

  /** A blob's JSON text: from the cache (keyed by its content hash, so never stale) or inflated from its row. */
  function readText(hash: Buffer): string {
    const key = hash.toString('latin1');
    const cached = texts.get(key);
    if (cached !== undefined) return cached;
    const row = selectBlobData.get(hash);
    if (row === undefined) throw new TokentapError('STORE_CORRUPT', { message: `body blob ${hash.toString('hex')} is missing` });
    const text = decompressText(row.data);
    // a very long text (a huge pasted file) would push out the many messages that come back every turn
    if (text.length <= DEFAULT_BLOB_TEXT_CACHE_CHARS / 8) texts.set(key, text);
    return text;
  }

  function writeBlob(part: JsonPart): number {
    const existing = selectBlobId.get(part.hash);
    if (existing !== undefined) return existing.id;
    // null: another gateway on the same PostgreSQL database stored it meanwhile
    return insertBlob(part.hash, compressText(part.text)) ?? (selectBlobId.get(part.hash) as { id: number }).id;
  }

  function writeList(parts: readonly JsonPart[]): string {
    const cellHashes = prefixHashes(parts);
    // Search from the end: a resent history usually lacks only its last few elements.
    let storedLength = parts.length;
    let previousId: number | null = null;
    for (; storedLength > 0; storedLength--) {
      const existing = selectListId.get(cellHashes[storedLength - 1] as Buffer);
      if (existing !== undefined) {
        previousId = existing.id;
        break;
      }
    }
    for (let index = storedLength; index < parts.length; index++) {
      const blobId = writeBlob(parts[index] as JsonPart);
      const cellHash = cellHashes[index] as Buffer;
      previousId = insertList(cellHash, previousId, blobId, index + 1) ?? (selectListId.get(cellHash) as { id: number }).id;
    }
    return (cellHashes[cellHashes.length - 1] ?? EMPTY_LIST_HASH).toString('hex');
  }

  function readBlob(hash: string): unknown {
    return JSON.parse(readText(Buffer.from(hash, 'hex')));
  }

  function readList(hash: string): unknown[] {
    const rows = selectListHashes.all(Buffer.from(hash, 'hex'));
    const expected = rows[rows.length - 1]?.length;
    if (expected === undefined || rows.length !== expected) {
      throw new TokentapError('STORE_CORRUPT', { message: `body list ${hash} is missing or broken` });
    }
    // parsed afresh on every read: callers own (and may change) what they are handed
    return rows.map((row) => JSON.parse(readText(row.hash)));
  }

  return { writeBlob, writeList, readBlob, readList };
}

/**
 * Characters of blob text kept inflated (about 16 MB). Reading the bodies of a session's calls reads the same
 * messages again and again (every request resends the history); each is then inflated once.
 */
export const DEFAULT_BLOB_TEXT_CACHE_CHARS = 8 * 1024 * 1024;

/** Hashes a JSON text for storage. */
export function toJsonPartOfText(text: string): JsonPart {
  return { text, hash: sha256(Buffer.from(text, 'utf8')) };
}

const EMPTY_LIST_HASH = Buffer.alloc(32);

/** Cell i's hash is sha256(cell i-1's hash || part i's hash), the empty list's being 32 zero bytes. */
function prefixHashes(parts: readonly JsonPart[]): Buffer[] {
  const hashes: Buffer[] = [];
  const link = Buffer.alloc(64);
  for (const part of parts) {
    part.hash.copy(link, 32);
    const cellHash = sha256(link);
    cellHash.copy(link, 0);
    hashes.push(cellHash);
  }
  return hashes;
}

/** One-shot crypto.hash: several times cheaper than createHash for the many small parts of a body. */
function sha256(bytes: Buffer): Buffer {
  return oneShotHash('sha256', bytes, 'buffer');
}
