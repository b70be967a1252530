import { hash as oneShotHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { compressJson, compressText, decompressJson, decompressText } from './compress-json.js';
import { StoreError } from './store-error.js';

/**
 * Request bodies, stored so a session costs linear space although every request resends the whole
 * history. Bodies are stored as parsed JSON: reading one back gives a value deep-equal to
 * `JSON.parse(JSON.stringify(body))` (same keys in the same order), not the client's exact bytes
 * or whitespace.
 *
 * A body object becomes an envelope listing its top-level fields in order, each one of:
 * - `value`: small fields kept inline (`model`, `temperature`, ...);
 * - `list`: the array fields `messages` / `input`, each element a content-addressed blob, the array a
 *   shared linked list of those blobs (see `blob_lists` in 001-initial.ts);
 * - `blob`: any other field whose JSON exceeds BLOB_FIELD_MIN_BYTES (`tools`, `system`, `instructions`).
 * Blobs are keyed by the sha256 of their JSON text and stored once, deflated; the harness's body and
 * the body sent to the backend share almost all of them. The envelope is deflated too.
 */

/** Top-level array fields that grow turn by turn, stored element by element. */
const LIST_FIELDS: ReadonlySet<string> = new Set(['messages', 'input']);

/** Other top-level fields larger than this (JSON bytes) are stored as a blob of their own. */
export const BLOB_FIELD_MIN_BYTES = 256;

const ENVELOPE_FORMAT = 1;

type EnvelopeField = [key: string, kind: 'value', value: unknown] | [key: string, kind: 'blob' | 'list', hash: string];

interface Envelope {
  format: number;
  /** set for bodies that are not JSON objects */
  value?: unknown;
  fields?: EnvelopeField[];
}

export interface BodyStore {
  /**
   * Stores the bodies' parts (inside the caller's transaction) and returns one deflated envelope per body.
   * Bodies written together share work: the backend body usually reuses the harness body's messages.
   */
  write(bodies: readonly unknown[]): Buffer[];
  /** Rebuilds a body from its envelope. */
  read(envelope: Buffer): unknown;
}

interface JsonPart {
  text: string;
  hash: Buffer;
}

/**
 * Work already done for the bodies of one write, by object identity. Scoped to one write because a
 * caller may mutate its objects between calls; within one write they cannot change.
 */
interface WriteMemo {
  parts: WeakMap<object, JsonPart>;
  lists: WeakMap<object, string>;
}

/**
 * Builds the body store over an open database.
 *
 * @example
 * const bodies = createBodyStore(database);
 * const [request, backend] = bodies.write([requestBody, backendRequestBody]); // into call_bodies
 * bodies.read(request); // deep-equal to requestBody
 */
export function createBodyStore(database: Database.Database): BodyStore {
  const selectBlobId = database.prepare<[Buffer], { id: number }>(`SELECT id FROM blobs WHERE hash = ?`);
  const selectBlobData = database.prepare<[Buffer], { data: Buffer }>(`SELECT data FROM blobs WHERE hash = ?`);
  const insertBlob = database.prepare<[Buffer, Buffer]>(`INSERT INTO blobs (hash, data) VALUES (?, ?)`);
  const selectListId = database.prepare<[Buffer], { id: number }>(`SELECT id FROM blob_lists WHERE hash = ?`);
  const insertList = database.prepare<[Buffer, number | null, number, number]>(
    `INSERT INTO blob_lists (hash, previous_id, blob_id, length) VALUES (?, ?, ?, ?)`,
  );
  // A recursive CTE walks the list iteratively inside SQLite: one statement however long the history.
  const selectListData = database.prepare<[Buffer], { length: number; data: Buffer }>(
    `WITH RECURSIVE chain (previous_id, blob_id, length) AS (
       SELECT previous_id, blob_id, length FROM blob_lists WHERE hash = ?
       UNION ALL
       SELECT blob_lists.previous_id, blob_lists.blob_id, blob_lists.length
         FROM blob_lists JOIN chain ON blob_lists.id = chain.previous_id
     )
     SELECT chain.length, blobs.data FROM chain JOIN blobs ON blobs.id = chain.blob_id ORDER BY chain.length`,
  );

  function writeBlob(part: JsonPart): number {
    const existing = selectBlobId.get(part.hash);
    if (existing !== undefined) return existing.id;
    return Number(insertBlob.run(part.hash, compressText(part.text)).lastInsertRowid);
  }

  /** Stores an array as a chain of list cells; each prefix is a cell keyed by a hash of all its elements. */
  function writeList(elements: unknown[], memo: WriteMemo): string {
    const known = memo.lists.get(elements);
    if (known !== undefined) return known;
    // Inside arrays JSON.stringify writes undefined and functions as null; so do we.
    const parts = elements.map((element) => toJsonPart(element, memo) ?? toJsonPartOfText('null'));
    const cellHashes: Buffer[] = [];
    const link = Buffer.alloc(64); // previous cell hash || element hash; the empty list hashes as zeros
    for (const part of parts) {
      part.hash.copy(link, 32);
      const cellHash = sha256(link);
      cellHash.copy(link, 0);
      cellHashes.push(cellHash);
    }
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
      previousId = Number(insertList.run(cellHashes[index] as Buffer, previousId, blobId, index + 1).lastInsertRowid);
    }
    const listHash = (cellHashes[cellHashes.length - 1] as Buffer).toString('hex');
    memo.lists.set(elements, listHash);
    return listHash;
  }

  function writeOne(body: unknown, memo: WriteMemo): Buffer {
    if (!isJsonObject(body)) return compressJson({ format: ENVELOPE_FORMAT, value: body ?? null });
    const fields: EnvelopeField[] = [];
    for (const [key, value] of Object.entries(body)) {
      if (LIST_FIELDS.has(key) && Array.isArray(value) && value.length > 0) {
        fields.push([key, 'list', writeList(value, memo)]);
        continue;
      }
      const part = toJsonPart(value, memo);
      if (part === undefined) continue; // JSON.stringify drops undefined and function fields; so do we
      if (Buffer.byteLength(part.text, 'utf8') > BLOB_FIELD_MIN_BYTES) {
        writeBlob(part);
        fields.push([key, 'blob', part.hash.toString('hex')]);
      } else {
        fields.push([key, 'value', value]);
      }
    }
    return compressJson({ format: ENVELOPE_FORMAT, fields } satisfies Envelope);
  }

  function readBlob(hash: string): unknown {
    const row = selectBlobData.get(Buffer.from(hash, 'hex'));
    if (row === undefined) throw new StoreError('STORE_CORRUPT', `body blob ${hash} is missing`);
    return JSON.parse(decompressText(row.data));
  }

  function readList(hash: string): unknown[] {
    const rows = selectListData.all(Buffer.from(hash, 'hex'));
    const expected = rows[rows.length - 1]?.length;
    if (expected === undefined || rows.length !== expected) {
      throw new StoreError('STORE_CORRUPT', `body list ${hash} is missing or broken`);
    }
    return rows.map((row) => JSON.parse(decompressText(row.data)));
  }

  function read(envelopeBytes: Buffer): unknown {
    const envelope = decompressJson(envelopeBytes) as Envelope;
    if (envelope.format !== ENVELOPE_FORMAT) {
      throw new StoreError('STORE_CORRUPT', `unknown body envelope format ${String(envelope.format)}`);
    }
    if (envelope.fields === undefined) return envelope.value;
    // Object.fromEntries defines own properties, so a `__proto__` key stays data, as in JSON.parse.
    return Object.fromEntries(
      envelope.fields.map((field) => {
        if (field[1] === 'value') return [field[0], field[2]];
        return [field[0], field[1] === 'list' ? readList(field[2]) : readBlob(field[2])];
      }),
    );
  }

  function write(bodies: readonly unknown[]): Buffer[] {
    const memo: WriteMemo = { parts: new WeakMap(), lists: new WeakMap() };
    return bodies.map((body) => writeOne(body, memo));
  }

  return { write, read };
}

/** The value's JSON text and its hash, undefined where JSON.stringify gives nothing; memoized per object. */
function toJsonPart(value: unknown, memo: WriteMemo): JsonPart | undefined {
  const memoizable = typeof value === 'object' && value !== null;
  const known = memoizable ? memo.parts.get(value) : undefined;
  if (known !== undefined) return known;
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return undefined;
  const part = toJsonPartOfText(text);
  if (memoizable) memo.parts.set(value, part);
  return part;
}

function toJsonPartOfText(text: string): JsonPart {
  return { text, hash: sha256(Buffer.from(text, 'utf8')) };
}

/** One-shot crypto.hash: several times cheaper than createHash for the many small parts of a body. */
function sha256(bytes: Buffer): Buffer {
  return oneShotHash('sha256', bytes, 'buffer');
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
