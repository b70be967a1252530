import type { SqlDatabase } from './sql/sql-database.js';
import { createBlobStore, planList, toJsonPartOfText, type JsonPart, type ListPlan } from './blob-store.js';
import { compressJson, decompressJson } from './compress-json.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { isRecord } from '../core/json/is-record.js';

/**
 * Request bodies, stored so a session costs linear space although every request resends the whole
 * history. Bodies are stored as parsed JSON: reading one back gives a value deep-equal to
 * `JSON.parse(JSON.stringify(body))` (same keys in the same order), not the client's exact bytes
 * or whitespace.
 *
 * A body object becomes an envelope listing its top-level fields in order, each one of:
 * - `value`: small fields kept inline (`model`, `temperature`, ...);
 * - `list`: the array fields `messages` / `input`, each element a content-addressed blob, the array a
 *   list sharing its stored prefixes (blob-store.ts);
 * - `blob`: any other field whose JSON exceeds BLOB_FIELD_MIN_BYTES (`tools`, `system`, `instructions`).
 * The harness's body and the body sent to the backend share almost all blobs. The envelope is deflated too.
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
  /**
   * `write` in two halves: the lookup of what is stored already, when one is needed, is queued now (on PostgreSQL it
   * travels with the caller's next statement), and the returned function queues the rest and gives the envelopes,
   * with `stored` to call once the caller's transaction has committed (blob-store.ts: known parts need no lookup).
   */
  writeLater(bodies: readonly unknown[]): () => { envelopes: Buffer[]; stored: () => void };
  /** Rebuilds a body from its envelope. */
  read(envelope: Buffer): unknown;
  /** A transaction that stored parts did not commit: forgets which parts are stored (blob-store.ts). */
  forget(): void;
}

/**
 * Work already done for the bodies of one write, by object identity. Scoped to one write because a
 * caller may mutate its objects between calls; within one write they cannot change.
 */
interface WriteMemo {
  parts: WeakMap<object, JsonPart>;
  lists: WeakMap<object, ListPlan>;
  /** what the write stores: each list and single blob once */
  toStore: { lists: Map<string, ListPlan>; blobs: Map<string, JsonPart> };
}

/**
 * Builds the body store over an open database.
 *
 * @example
 * const bodies = createBodyStore(database);
 * const [request, backend] = bodies.write([requestBody, backendRequestBody]); // into call_bodies
 * bodies.read(request); // deep-equal to requestBody
 */
export function createBodyStore(database: SqlDatabase): BodyStore {
  const blobs = createBlobStore(database);

  function planElements(elements: unknown[], memo: WriteMemo): string {
    const known = memo.lists.get(elements);
    if (known !== undefined) return known.hash;
    // Inside arrays JSON.stringify writes undefined and functions as null; so do we.
    const list = planList(elements.map((element) => toJsonPart(element, memo) ?? toJsonPartOfText('null')));
    memo.lists.set(elements, list);
    memo.toStore.lists.set(list.hash, list);
    return list.hash;
  }

  function envelopeOf(body: unknown, memo: WriteMemo): Buffer {
    if (!isRecord(body)) return compressJson({ format: ENVELOPE_FORMAT, value: body ?? null });
    const fields: EnvelopeField[] = [];
    for (const [key, value] of Object.entries(body)) {
      if (LIST_FIELDS.has(key) && Array.isArray(value) && value.length > 0) {
        fields.push([key, 'list', planElements(value, memo)]);
        continue;
      }
      const part = toJsonPart(value, memo);
      if (part === undefined) continue; // JSON.stringify drops undefined and function fields; so do we
      if (Buffer.byteLength(part.text, 'utf8') > BLOB_FIELD_MIN_BYTES) {
        memo.toStore.blobs.set(part.hash.toString('latin1'), part);
        fields.push([key, 'blob', part.hash.toString('hex')]);
      } else {
        fields.push([key, 'value', value]);
      }
    }
    return compressJson({ format: ENVELOPE_FORMAT, fields } satisfies Envelope);
  }

  function read(envelopeBytes: Buffer): unknown {
    const envelope = decompressJson(envelopeBytes) as Envelope;
    if (envelope.format !== ENVELOPE_FORMAT) {
      throw new TokentapError('STORE_CORRUPT', { message: `unknown body envelope format ${String(envelope.format)}` });
    }
    if (envelope.fields === undefined) return envelope.value;
    // the body's lists and blobs read together: the texts missing from the cache in one statement (blob-store.ts)
    const parts = blobs.readParts(
      envelope.fields.flatMap((field) => (field[1] === 'list' ? [field[2]] : [])),
      envelope.fields.flatMap((field) => (field[1] === 'blob' ? [field[2]] : [])),
    );
    let list = 0;
    let blob = 0;
    // Object.fromEntries defines own properties, so a `__proto__` key stays data, as in JSON.parse.
    return Object.fromEntries(
      envelope.fields.map((field) => {
        if (field[1] === 'value') return [field[0], field[2]];
        return [field[0], field[1] === 'list' ? parts.lists[list++] : parts.blobs[blob++]];
      }),
    );
  }

  function writeLater(bodies: readonly unknown[]): () => { envelopes: Buffer[]; stored: () => void } {
    const memo: WriteMemo = { parts: new WeakMap(), lists: new WeakMap(), toStore: { lists: new Map(), blobs: new Map() } };
    // the envelopes name their parts by hash, known before anything is stored
    const envelopes = bodies.map((body) => envelopeOf(body, memo));
    const finish = blobs.write([...memo.toStore.lists.values()], [...memo.toStore.blobs.values()]);
    return () => ({ envelopes, stored: finish() });
  }

  return { write: (bodies) => writeLater(bodies)().envelopes, writeLater, read, forget: () => blobs.forget() };
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
