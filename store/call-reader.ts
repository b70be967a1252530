import type Database from 'better-sqlite3';
import type { BodyStore } from './body-store.js';
import { CALL_COLUMNS, toCallRow, type CallRecord } from './call-record.js';
import { decompressJson, decompressText } from './compress-json.js';
import { unpackInt32 } from './pack-tokens.js';
import type { PromptDelta } from './prompt-delta.js';
import type { CallBodies, CallRow } from './types.js';

export interface CallReader {
  getCall(callId: string): CallRow | null;
  getCallBodies(callId: string): CallBodies | null;
  listCalls(sessionId: string): CallRow[];
}

interface BodiesRecord {
  request_body: Buffer;
  backend_request_body: Buffer;
  chat_request_body: Buffer | null;
  response_body: Buffer | null;
  response_stream: Buffer | null;
}

/**
 * The read side of calls. Every call read caches its base sequence, so reading a session in seq
 * order rebuilds each prompt from the call before it instead of walking the whole chain.
 *
 * @example
 * const reader = createCallReader({ database, bodies, delta });
 * for (const call of reader.listCalls(sessionId)) train(call.promptTokenIds, call.completionTokenIds);
 */
export function createCallReader(options: {
  database: Database.Database;
  bodies: BodyStore;
  delta: PromptDelta;
}): CallReader {
  const { database, bodies, delta } = options;
  const selectCall = database.prepare<[string], CallRecord>(`SELECT ${CALL_COLUMNS} FROM calls WHERE id = ?`);
  const selectSessionCalls = database.prepare<[string], CallRecord>(
    `SELECT ${CALL_COLUMNS} FROM calls WHERE session_id = ? ORDER BY seq`,
  );
  const selectBodies = database.prepare<[string], BodiesRecord>(
    `SELECT request_body, backend_request_body, chat_request_body, response_body, response_stream FROM call_bodies WHERE call_id = ?`,
  );

  function toRow(record: CallRecord): CallRow {
    const completionTokenIds = record.completion_token_ids === null ? null : unpackInt32(record.completion_token_ids);
    if (record.prompt_tail === null || record.prompt_prefix_length === null) {
      return toCallRow(record, { promptTokenIds: null, completionTokenIds });
    }
    const promptTokenIds = delta.decode({
      parentId: record.prompt_parent_id,
      prefixLength: record.prompt_prefix_length,
      tail: record.prompt_tail,
    });
    delta.remember(record.id, promptTokenIds, completionTokenIds);
    return toCallRow(record, { promptTokenIds, completionTokenIds });
  }

  // One read transaction, so a whole session is read from one snapshot while a writer commits.
  const listInSnapshot = database.transaction((sessionId: string) => selectSessionCalls.all(sessionId).map(toRow));

  return {
    getCall(callId) {
      const record = selectCall.get(callId);
      return record === undefined ? null : toRow(record);
    },
    getCallBodies(callId) {
      const record = selectBodies.get(callId);
      if (record === undefined) return null;
      return {
        requestBody: bodies.read(record.request_body),
        backendRequestBody: bodies.read(record.backend_request_body),
        chatRequestBody: record.chat_request_body === null ? null : bodies.read(record.chat_request_body),
        responseBody: record.response_body === null ? null : decompressJson(record.response_body),
        responseStream: record.response_stream === null ? null : decompressText(record.response_stream),
      };
    },
    listCalls: (sessionId) => listInSnapshot.deferred(sessionId),
  };
}
