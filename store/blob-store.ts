import { hash as oneShotHash } from 'node:crypto';
import { ignoreConflicts, queuedAll, queuedRun, type SqlDatabase } from './sql/sql-database.js';
import { BoundedLru } from './bounded-lru.js';
import { compressText, decompressText } from './compress-json.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * Content-addressed storage for the parts of bodies (see body-store.ts): each distinct JSON text is
 * one `blobs` row keyed by its sha256, deflated; an array of parts is a chain of `blob_lists` cells,
 * one per prefix, keyed by a hash over the whole prefix. A history that grows by two messages a turn
 * then adds two blobs and two cells a turn, however often it is resent.
 *
 * Writing costs one lookup statement for all the parts of a call's bodies (which of the lists' last cells and which
 * blobs are stored), and inserts whose results nobody reads: a cell names its previous cell and its blob by their
 * hashes, so no insert waits for another's id (on PostgreSQL they are queued, and sent with the commit). The lookup
 * is skipped when every list has a cell this store saw committed (the next turn of a conversation: its history up
 * to the newest known cell is stored, rows are never deleted): the rest is inserted as it is (`INSERT OR IGNORE`),
 * so the call's begin needs no answer before its COMMIT (one round trip on PostgreSQL; issue 17).
 *
 * Reading a body costs a walk of each list, none for a list that is a prefix of one this store walked before (the
 * walked cells are remembered: an earlier call's history is a prefix of a later one's), and one statement for all the
 * texts of the body not cached yet, LOOKUP_SLOTS at a time (issue 17: the export's reads at chain breaks).
 */

/** A JSON text and the sha256 of its UTF-8 bytes: the unit stored once. */
export interface JsonPart {
  text: string;
  hash: Buffer;
}

/** A list's parts with the hashes of its cells (cell i: the prefix of i + 1 parts); the last one is the list's hash. */
export interface ListPlan {
  parts: readonly JsonPart[];
  cells: readonly Buffer[];
  /** the list's hash (hex): the last cell's, 32 zero bytes for an empty list */
  hash: string;
}

export interface BlobStore {
  /**
   * Starts storing the lists and single blobs of one write (inside the caller's transaction): their lookup, when one
   * is needed, is queued (on PostgreSQL it travels with the caller's next statement); the returned function finishes
   * it, queueing the inserts of what is not stored yet, and returns the function to call once the transaction has
   * committed (the parts become known: later writes look them up no more).
   */
  write(lists: readonly ListPlan[], blobs: readonly JsonPart[]): () => () => void;
  /**
   * The lists and single blobs of one body at once: each list's walk (none for a list this store walked as a prefix
   * of one before), then the texts missing from the cache, LOOKUP_SLOTS per statement (one round trip on PostgreSQL
   * for a body's usual few).
   */
  readParts(lists: readonly string[], blobs: readonly string[]): { lists: unknown[][]; blobs: unknown[] };
  /** A transaction that stored parts did not commit: forgets which parts are known (they may not be stored). */
  forget(): void;
}

/** Hashes the lookup statement takes of each kind (cells, blobs): a list's last cells are searched this many at a time. */
export const LOOKUP_SLOTS = 16;
const SLOT_PLACEHOLDERS = Array.from({ length: LOOKUP_SLOTS }, () => '?').join(', ');
/** Cell and blob hashes remembered as committed (about 10 MB): a turn of a conversation adds four. */
export const DEFAULT_KNOWN_PARTS = 100_000;
/** Cells remembered from list walks (about 10 MB): a list that is a prefix of one walked before is read without a walk. */
export const DEFAULT_KNOWN_CELLS = 50_000;
/** No sha256 is 32 zero bytes: an empty slot, and the previous cell of a list's first (none). */
const EMPTY_LIST_HASH = Buffer.alloc(32);

const CELL = 0;
const BLOB = 1;

/**
 * @example
 * const blobs = createBlobStore(database);
 * const list = planList(messages.map((message) => toJsonPartOfText(JSON.stringify(message))));
 * blobs.write([list], [])(); // list.hash names it
 */
export function createBlobStore(database: SqlDatabase): BlobStore {
  const selectData = database.prepare<Buffer[], { hash: Buffer; data: Buffer }>(`SELECT hash, data FROM blobs WHERE hash IN (${SLOT_PLACEHOLDERS})`);
  const lookup = queuedAll(
    database.prepare<Buffer[], { kind: number; hash: Buffer }>(
      `SELECT ${CELL} AS kind, hash FROM blob_lists WHERE hash IN (${SLOT_PLACEHOLDERS})
       UNION ALL
       SELECT ${BLOB} AS kind, hash FROM blobs WHERE hash IN (${SLOT_PLACEHOLDERS})`,
    ),
  );
  // another writer (a gateway on the same PostgreSQL database) may store the same row meanwhile: that one stays
  const insertBlob = queuedRun(
    database.prepare<[Buffer, Buffer]>(ignoreConflicts(database, `INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)`)),
  );
  // by hash, each found by a statement after the one that stored it (PostgreSQL's statements each see what committed before them)
  const insertCell = queuedRun(
    database.prepare<[Buffer, Buffer, Buffer, number]>(
      ignoreConflicts(
        database,
        `INSERT OR IGNORE INTO blob_lists (hash, previous_id, blob_id, length)
         VALUES (?, (SELECT id FROM blob_lists WHERE hash = ?), (SELECT id FROM blobs WHERE hash = ?), ?)`,
      ),
    ),
  );
  // A recursive CTE walks the list iteratively inside SQLite: one statement however long the history. Each cell comes
  // with its own hash, remembered: the lists of a session's earlier calls are prefixes of its later ones.
  const selectListCells = database.prepare<[Buffer], { length: number; cell: Buffer; blob: Buffer }>(
    `WITH RECURSIVE chain (hash, previous_id, blob_id, length) AS (
       SELECT hash, previous_id, blob_id, length FROM blob_lists WHERE hash = ?
       UNION ALL
       SELECT blob_lists.hash, blob_lists.previous_id, blob_lists.blob_id, blob_lists.length
         FROM blob_lists JOIN chain ON blob_lists.id = chain.previous_id
     )
     SELECT chain.length, chain.hash AS cell, blobs.hash AS blob FROM chain JOIN blobs ON blobs.id = chain.blob_id ORDER BY chain.length`,
  );
  const texts = new BoundedLru<string>(DEFAULT_BLOB_TEXT_CACHE_CHARS, (text) => text.length);
  // hashes of cells (`c` + latin1) and blobs (`b` + latin1) stored by a transaction of this store that committed
  const known = new BoundedLru<true>(DEFAULT_KNOWN_PARTS, () => 1);
  const isKnown = (kind: 'c' | 'b', hash: Buffer): boolean => known.get(kind + hash.toString('latin1')) !== undefined;

  // cells walked (latin1 hash -> the latin1 hashes of its blob and its previous cell): never stale, rows are never changed
  const cells = new BoundedLru<WalkedCell>(DEFAULT_KNOWN_CELLS, () => 1);

  /**
   * The JSON texts of blobs (latin1 hashes), in order: from the cache (keyed by content hash, so never stale), the rest
   * inflated from their rows, LOOKUP_SLOTS per statement.
   */
  function readTexts(keys: readonly string[]): string[] {
    // what the cache holds is taken first: the texts inflated below may push some of it out
    const read = new Map<string, string>();
    const missing = new Set<string>();
    for (const key of keys) {
      if (read.has(key) || missing.has(key)) continue;
      const cached = texts.get(key);
      if (cached === undefined) missing.add(key);
      else read.set(key, cached);
    }
    const hashes = [...missing].map((key) => Buffer.from(key, 'latin1'));
    for (let start = 0; start < hashes.length; start += LOOKUP_SLOTS) {
      for (const row of selectData.all(...slots(hashes, start))) {
        const key = row.hash.toString('latin1');
        const text = decompressText(row.data);
        read.set(key, text);
        // a very long text (a huge pasted file) would push out the many messages that come back every turn
        if (text.length <= DEFAULT_BLOB_TEXT_CACHE_CHARS / 8) texts.set(key, text);
      }
    }
    return keys.map((key) => {
      const text = read.get(key);
      if (text === undefined)
        throw new TokentapError('STORE_CORRUPT', { message: `body blob ${Buffer.from(key, 'latin1').toString('hex')} is missing` });
      return text;
    });
  }

  /** The latin1 hashes of a list's blobs, in order: from the cells remembered as far back as they go, the rest walked. */
  function listBlobs(hash: string): string[] {
    const tail: string[] = [];
    let key: string | null = Buffer.from(hash, 'hex').toString('latin1');
    while (key !== null) {
      const cell = cells.get(key);
      if (cell === undefined) break;
      tail.push(cell.blob);
      key = cell.previous;
    }
    if (key === null) return tail.reverse();
    const rows = selectListCells.all(Buffer.from(key, 'latin1'));
    const expected = rows[rows.length - 1]?.length;
    if (expected === undefined || rows.length !== expected) {
      throw new TokentapError('STORE_CORRUPT', { message: `body list ${hash} is missing or broken` });
    }
    let previous: string | null = null;
    const blobs = rows.map((row) => {
      const cell = row.cell.toString('latin1');
      const blob = row.blob.toString('latin1');
      cells.set(cell, { blob, previous });
      previous = cell;
      return blob;
    });
    return [...blobs, ...tail.reverse()];
  }

  /** Queues lookups of the cells and blobs, LOOKUP_SLOTS of each per statement; the result says which are stored. */
  function queueLookup(cells: readonly Buffer[], blobs: readonly Buffer[]): () => StoredHashes {
    const answers: Array<() => Array<{ kind: number; hash: Buffer }>> = [];
    for (let start = 0; start < Math.max(cells.length, blobs.length); start += LOOKUP_SLOTS) {
      answers.push(lookup(...slots(cells, start), ...slots(blobs, start)));
    }
    return () => {
      const stored: StoredHashes = { cells: new Set(), blobs: new Set() };
      for (const row of answers.flatMap((answer) => answer())) (row.kind === CELL ? stored.cells : stored.blobs).add(row.hash.toString('latin1'));
      return stored;
    };
  }

  function write(lists: readonly ListPlan[], blobs: readonly JsonPart[]): () => () => void {
    const knownLengths = lists.map(knownLength);
    if (lists.every((list, index) => list.cells.length === 0 || (knownLengths[index] as number) > 0)) {
      return () =>
        insertMissing(
          lists,
          blobs,
          knownLengths,
          (part) => isKnown('b', part.hash),
          (_cell, hash) => isKnown('c', hash),
        );
    }
    // each list's last cells, and the blobs of their parts and the single ones
    const windows = lists.map((list) => ({ list, start: Math.max(0, list.cells.length - LOOKUP_SLOTS), end: list.cells.length }));
    const first = queueLookup(
      windows.flatMap(({ list, start, end }) => list.cells.slice(start, end)),
      unique([...blobs, ...windows.flatMap(({ list, start, end }) => list.parts.slice(start, end))]),
    );
    return () => {
      const stored = first();
      const lengths = storedLengths(windows, stored);
      return insertMissing(
        lists,
        blobs,
        lengths,
        (part) => stored.blobs.has(part.hash.toString('latin1')),
        (_cell, hash) => stored.cells.has(hash.toString('latin1')),
      );
    };
  }

  /** One past the newest cell of the list this store knows committed (0: none). */
  function knownLength(list: ListPlan): number {
    for (let cell = list.cells.length; cell > 0; cell--) if (isKnown('c', list.cells[cell - 1] as Buffer)) return cell;
    return 0;
  }

  /**
   * Queues the inserts of the blobs and of each list's cells from `lengths` on that are not stored, and returns what
   * marks them all known once the transaction committed.
   */
  function insertMissing(
    lists: readonly ListPlan[],
    blobs: readonly JsonPart[],
    lengths: readonly number[],
    blobStored: (part: JsonPart) => boolean,
    cellStored: (cell: number, hash: Buffer) => boolean,
  ): () => void {
    const queued = new Set<string>();
    const touched: string[] = [];
    const storeBlob = (part: JsonPart): void => {
      const key = `b${part.hash.toString('latin1')}`;
      if (queued.has(key)) return;
      queued.add(key);
      touched.push(key);
      if (!blobStored(part)) insertBlob(part.hash, compressText(part.text));
    };
    blobs.forEach(storeBlob);
    lists.forEach((list, index) => {
      for (let cell = lengths[index] as number; cell < list.cells.length; cell++) {
        const cellHash = list.cells[cell] as Buffer;
        const key = `c${cellHash.toString('latin1')}`;
        if (queued.has(key)) continue;
        queued.add(key);
        touched.push(key);
        if (cellStored(cell, cellHash)) continue;
        const part = list.parts[cell] as JsonPart;
        storeBlob(part);
        insertCell(cellHash, cell === 0 ? EMPTY_LIST_HASH : (list.cells[cell - 1] as Buffer), part.hash, cell + 1);
      }
      // the newest cell of the list was stored before: it is the one the next turn starts from
      const last = lengths[index] as number;
      if (last > 0) touched.push(`c${(list.cells[last - 1] as Buffer).toString('latin1')}`);
    });
    return () => touched.forEach((key) => known.set(key, true));
  }

  /**
   * How many leading cells of each list are stored: one past the last stored cell of its window. A list none of whose
   * last cells is stored (a long history seen for the first time) is searched further back, a window at a time.
   */
  function storedLengths(windows: ReadonlyArray<{ list: ListPlan; start: number; end: number }>, stored: StoredHashes): number[] {
    const lengths = windows.map(() => 0);
    let searching = windows.map((window, index) => ({ ...window, index }));
    for (;;) {
      const further: typeof searching = [];
      for (const window of searching) {
        let found = window.end;
        while (found > window.start && !stored.cells.has((window.list.cells[found - 1] as Buffer).toString('latin1'))) found--;
        if (found > window.start) lengths[window.index] = found;
        else if (window.start > 0) further.push({ ...window, start: Math.max(0, window.start - LOOKUP_SLOTS), end: window.start });
      }
      if (further.length === 0) return lengths;
      const more = queueLookup(
        further.flatMap(({ list, start, end }) => list.cells.slice(start, end)),
        unique(further.flatMap(({ list, start, end }) => list.parts.slice(start, end))),
      )();
      more.cells.forEach((key) => stored.cells.add(key));
      more.blobs.forEach((key) => stored.blobs.add(key));
      searching = further;
    }
  }

  function readParts(lists: readonly string[], blobs: readonly string[]): { lists: unknown[][]; blobs: unknown[] } {
    const listKeys = lists.map(listBlobs);
    const blobKeys = blobs.map((hash) => Buffer.from(hash, 'hex').toString('latin1'));
    const read = readTexts([...listKeys.flat(), ...blobKeys]);
    // parsed afresh on every read: callers own (and may change) what they are handed
    let next = 0;
    const parse = (): unknown => JSON.parse(read[next++] as string);
    return { lists: listKeys.map((keys) => keys.map(parse)), blobs: blobKeys.map(parse) };
  }

  return { write, readParts, forget: () => known.clear() };
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

/**
 * The list of the parts as it is stored: its cells' hashes, and its own.
 *
 * @example planList([toJsonPartOfText('{"role":"user","content":"hi"}')]).hash // 64 hex digits
 */
export function planList(parts: readonly JsonPart[]): ListPlan {
  const cells = prefixHashes(parts);
  return { parts, cells, hash: (cells[cells.length - 1] ?? EMPTY_LIST_HASH).toString('hex') };
}

/** A cell of a list walked: the latin1 hashes of its blob and of its previous cell (null for a list's first). */
interface WalkedCell {
  blob: string;
  previous: string | null;
}

interface StoredHashes {
  /** latin1 keys of the hashes found stored */
  cells: Set<string>;
  blobs: Set<string>;
}

/** LOOKUP_SLOTS hashes from `start`, the missing ones empty. */
function slots(hashes: readonly Buffer[], start: number): Buffer[] {
  return Array.from({ length: LOOKUP_SLOTS }, (_, index) => hashes[start + index] ?? EMPTY_LIST_HASH);
}

/** The parts' hashes, each once. */
function unique(parts: readonly JsonPart[]): Buffer[] {
  const seen = new Map<string, Buffer>();
  for (const part of parts) seen.set(part.hash.toString('latin1'), part.hash);
  return [...seen.values()];
}

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
