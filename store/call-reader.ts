import { inJsonArray, sqlFor, type SqlDatabase } from './sql/sql-database.js';
import type { BodyStore } from './body-store.js';
import { CALL_COLUMNS, callRecordFromRaw, promptLinkOf, toCallRow, type CallRecord, type RawCallRecord } from './call-record.js';
import { decompressJson, decompressText } from './compress-json.js';
import { unpackInt32 } from './pack-tokens.js';
import type { PromptDelta } from './prompt-delta.js';
import { createSessionArena } from './session-arena.js';
import type { CallBodies, CallRow } from './types.js';

export interface CallReader {
  getCall(callId: string): CallRow | null;
  getCallBodies(callId: string, options?: { lazy?: boolean }): CallBodies | null;
  listCalls(sessionId: string): CallRow[];
  /** the calls of several sessions (`ids`: a JSON array), by session, each in seq order; run inside a read transaction */
  listCallsOf(ids: string): Map<string, CallRow[]>;
}

/** The columns of a call's bodies, in BodiesRecord's order. */
const BODY_COLUMNS = 'request_body, backend_request_body, chat_request_body, response_body, response_stream';

interface BodiesRecord {
  request_body: Buffer;
  backend_request_body: Buffer;
  chat_request_body: Buffer | null;
  response_body: Buffer | null;
  response_stream: Buffer | null;
}

/**
 * The read side of calls. A single call read caches its base sequence, so reading the next one rebuilds its prompt
 * from it instead of walking the whole chain; a session read lays its calls' ids out in arenas (session-arena.ts),
 * so each id is copied once and the ids of calls that extend each other share memory.
 *
 * @example
 * const reader = createCallReader({ database, bodies, delta });
 * for (const call of reader.listCalls(sessionId)) train(call.promptTokenIds, call.completionTokenIds);
 */
export function createCallReader(options: { database: SqlDatabase; bodies: BodyStore; delta: PromptDelta }): CallReader {
  const { database, bodies, delta } = options;
  const selectCall = database.prepare<[string], CallRecord>(`SELECT ${CALL_COLUMNS} FROM calls WHERE id = ?`);
  const selectSessionCalls = database
    .prepare<[string], RawCallRecord>(`SELECT ${CALL_COLUMNS} FROM calls WHERE session_id = ? ORDER BY seq`)
    .raw(true);
  const selectSessionsCalls = database
    .prepare<[string], RawCallRecord>(
      `SELECT ${CALL_COLUMNS} FROM calls
        WHERE ${inJsonArray(database, 'session_id', '?')}
        ORDER BY session_id, seq`,
    )
    .raw(true);
  // A chain break reads the call that opened a chain, then the one before it in its session (reconstruct-calls.ts
  // describeBreaks): on PostgreSQL, where each read is a round trip, that one's row comes along (issue 17, export speed).
  const selectBodies = database.prepare<{ callId: string }, BodiesRecord & { call_id: string }>(
    sqlFor(database, {
      sqlite: `SELECT call_id, ${BODY_COLUMNS} FROM call_bodies WHERE call_id = @callId`,
      postgres: `SELECT call_id, ${BODY_COLUMNS} FROM call_bodies WHERE call_id = @callId
                 UNION ALL
                 SELECT call_id, ${BODY_COLUMNS} FROM call_bodies
                  WHERE call_id = (SELECT earlier.id FROM calls AS this
                                     JOIN calls AS earlier ON earlier.session_id = this.session_id AND earlier.seq < this.seq
                                    WHERE this.id = @callId ORDER BY earlier.seq DESC LIMIT 1)`,
    }),
  );
  // the row read along with the last one, until asked for: only a finished call's (its row never changes again)
  let readAlong: (BodiesRecord & { call_id: string }) | null = null;

  function readBodiesRecord(callId: string): BodiesRecord | undefined {
    if (readAlong?.call_id === callId) {
      const record = readAlong;
      readAlong = null;
      return record;
    }
    const rows = selectBodies.all({ callId });
    const earlier = rows.find((row) => row.call_id !== callId);
    readAlong = earlier !== undefined && earlier.response_body !== null ? earlier : null;
    return rows.find((row) => row.call_id === callId);
  }

  function toRow(record: CallRecord): CallRow {
    const completionTokenIds = record.completion_token_ids === null ? null : unpackInt32(record.completion_token_ids);
    const link = promptLinkOf(record);
    if (link === null) return toCallRow(record, { promptTokenIds: null, completionTokenIds });
    const promptTokenIds = delta.decode(link);
    delta.remember(record.id, promptTokenIds, completionTokenIds);
    return toCallRow(record, { promptTokenIds, completionTokenIds });
  }

  /** A session's rows in seq order, their ids laid out by a session arena (each id copied once). */
  function toSessionRows(rawRecords: RawCallRecord[]): CallRow[] {
    const arena = createSessionArena((link) => delta.decode(link));
    return rawRecords.map((raw) => {
      const record = callRecordFromRaw(raw);
      const ids = arena.place({ id: record.id, link: promptLinkOf(record), completion: record.completion_token_ids });
      return toCallRow(record, { promptTokenIds: ids.prompt, completionTokenIds: ids.completion });
    });
  }

  // One read transaction, so a whole session is read from one snapshot while a writer commits.
  const listInSnapshot = database.transaction((sessionId: string) => toSessionRows(selectSessionCalls.all(sessionId)));

  return {
    getCall(callId) {
      const record = selectCall.get(callId);
      return record === undefined ? null : toRow(record);
    },
    getCallBodies(callId, options) {
      const record = readBodiesRecord(callId);
      if (record === undefined) return null;
      // Lazily, each body is rebuilt when first read: drift classification reads one request and the reply, never
      // the stream, and a request's messages cost a blob-list walk each. Stored bodies never change, so reading
      // later gives what reading now would, while the store is open.
      const read = lazyFields<CallBodies>({
        requestBody: () => bodies.read(record.request_body),
        backendRequestBody: () => bodies.read(record.backend_request_body),
        chatRequestBody: () => (record.chat_request_body === null ? null : bodies.read(record.chat_request_body)),
        responseBody: () => (record.response_body === null ? null : decompressJson(record.response_body)),
        responseStream: () => (record.response_stream === null ? null : decompressText(record.response_stream)),
      });
      return options?.lazy === true ? read : { ...read };
    },
    listCalls: (sessionId) => listInSnapshot.deferred(sessionId),
    listCallsOf(ids) {
      const bySession = new Map<string, RawCallRecord[]>();
      for (const raw of selectSessionsCalls.all(ids)) {
        const sessionId = raw[1] as string; // CALL_COLUMNS: id, session_id, ...
        const records = bySession.get(sessionId) ?? [];
        if (records.length === 0) bySession.set(sessionId, records);
        records.push(raw);
      }
      return new Map([...bySession].map(([sessionId, records]) => [sessionId, toSessionRows(records)]));
    },
  };
}

/**
 * An object whose fields are computed on first read, then kept: enumerable, so spreading, JSON.stringify and deep
 * equality see plain values.
 */
function lazyFields<T extends object>(readers: { [K in keyof T]: () => T[K] }): T {
  const target = {} as T;
  for (const key of Object.keys(readers) as Array<keyof T>) {
    Object.defineProperty(target, key, {
      enumerable: true,
      configurable: true,
      get() {
        const value = readers[key]();
        Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
        return value;
      },
      set(value: T[keyof T]) {
        Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
      },
    });
  }
  return target;
}
