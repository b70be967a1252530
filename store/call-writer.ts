import { randomUUID } from 'node:crypto';
import { dialectOf, queuedRun, type SqlDatabase } from './sql/sql-database.js';
import { mergePatch } from './merge-patch.js';
import type { BodyStore } from './body-store.js';
import { toNullableJson } from './call-record.js';
import { compressJson, compressText } from './compress-json.js';
import { packFloat32, packInt32, toLogprobArray, toTokenIdArray } from './pack-tokens.js';
import type { PromptDelta } from './prompt-delta.js';
import type { SessionQueries } from './session-queries.js';
import { assertStorableId } from './storable-id.js';
import { wellFormedText } from './well-formed-text.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import type { BeginCallInput, CallStatus, FinishCallInput } from './types.js';

const FINISHED_STATUSES: ReadonlySet<CallStatus> = new Set(['ok', 'backend_error', 'aborted']);

export interface CallWriter {
  beginCall(input: BeginCallInput): { callId: string; seq: number };
  finishCall(callId: string, result: FinishCallInput): void;
  markIncomplete(callIds: readonly string[]): number;
}

/**
 * The write side of calls. Each method is one IMMEDIATE transaction: the write lock is taken before
 * the first read, so `seq` and the in_progress check cannot race another connection.
 *
 * @example
 * const writer = createCallWriter({ database, sessions, bodies, delta });
 * const { callId } = writer.beginCall(input);
 * writer.finishCall(callId, result);
 */
export function createCallWriter(options: { database: SqlDatabase; sessions: SessionQueries; bodies: BodyStore; delta: PromptDelta }): CallWriter {
  const { database, sessions, bodies, delta } = options;
  const postgres = dialectOf(database) === 'postgres';
  const selectNextSeq = database.prepare<[string], { seq: number }>(`SELECT coalesce(max(seq), 0) + 1 AS seq FROM calls WHERE session_id = ?`);
  const insertCall = database.prepare(
    `INSERT INTO calls (id, session_id, seq, status, front_door, path, requested_model, backend_model, stream,
                        policy_version, sampling_params, metadata, started_at, instance_id, backend_id)
     VALUES (@id, @sessionId, @seq, 'in_progress', @frontDoor, @path, @requestedModel, @backendModel, @stream,
             @policyVersion, @samplingParams, @metadata, @startedAt, @instanceId, @backendId)`,
  );
  // PostgreSQL, in two statements where SQLite takes four (each a round trip there): gateways beginning calls of one
  // session at once take turns on its row (the upsert locks it, and moves activity_at as touch does), and the call's
  // insert, a statement after the lock, reads the seq the one before it committed. SQLite's IMMEDIATE transaction
  // holds the whole database instead.
  const claimSession = postgres
    ? queuedRun(
        database.prepare<[string, number, number]>(
          `INSERT INTO sessions (id, created_at, activity_at, metadata) VALUES (?, ?, ?, '{}')
           ON CONFLICT (id) DO UPDATE SET activity_at = greatest(sessions.activity_at, EXCLUDED.activity_at)`,
        ),
      )
    : null;
  const insertCallWithSeq = postgres
    ? database.prepare<[Record<string, unknown>], { seq: number }>(
        `INSERT INTO calls (id, session_id, seq, status, front_door, path, requested_model, backend_model, stream,
                            policy_version, sampling_params, metadata, started_at, instance_id, backend_id)
         SELECT @id, @sessionId, coalesce(max(seq), 0) + 1, 'in_progress', @frontDoor, @path, @requestedModel, @backendModel,
                @stream, @policyVersion, @samplingParams, @metadata, @startedAt, @instanceId, @backendId
           FROM calls WHERE session_id = @sessionId
         RETURNING seq`,
      )
    : null;
  // the writes below are queued on PostgreSQL (sent with the next statement waited for, or the COMMIT): no caller reads their result
  const insertBodies = queuedRun(
    database.prepare<[string, Buffer, Buffer, Buffer | null]>(
      `INSERT INTO call_bodies (call_id, request_body, backend_request_body, chat_request_body) VALUES (?, ?, ?, ?)`,
    ),
  );
  const selectState = database.prepare<[string], { session_id: string; status: CallStatus; metadata: string }>(
    `SELECT session_id, status, metadata FROM calls WHERE id = ?`,
  );
  const updateCall = queuedRun(
    database.prepare<[Record<string, unknown>]>(
      `UPDATE calls SET status = @status, token_source = @tokenSource, finish_reason = @finishReason,
            stop_reason = ${postgres ? '@stopReason::jsonb' : '@stopReason'}, usage = @usage, error = @error, http_status = @httpStatus, flags = @flags,
            ended_at = @endedAt, time_to_first_token_ms = @timeToFirstTokenMs, total_ms = @totalMs,
            prompt_tokens = @promptTokens, completion_tokens = @completionTokens,
            prompt_parent_id = @promptParentId, prompt_prefix_length = @promptPrefixLength, prompt_tail = @promptTail,
            completion_token_ids = @completionTokenIds, completion_logprobs = @completionLogprobs,
            backend_id = coalesce(@backendId, backend_id), weight_version = @weightVersion,
            metadata = @metadata
      WHERE id = @id AND status = 'in_progress'`,
    ),
  );
  const updateBodies = queuedRun(
    database.prepare<[Buffer | null, Buffer | null, string]>(`UPDATE call_bodies SET response_body = ?, response_stream = ? WHERE call_id = ?`),
  );

  // in place: on a full disk this needs no new page where a finish with its bodies and ids does
  const markIncomplete = database.prepare<[string]>(`UPDATE calls SET status = 'incomplete' WHERE id = ? AND status = 'in_progress'`);
  const markAll = database.transaction((callIds: readonly string[]): number =>
    callIds.reduce((changed, callId) => changed + markIncomplete.run(callId).changes, 0),
  );

  const begin = database.transaction((callId: string, input: BeginCallInput): number => {
    const columns = {
      id: callId,
      sessionId: input.sessionId,
      // the texts of columns of their own (not JSON) are made valid Unicode: the last guard (well-formed-text.ts)
      frontDoor: wellFormedText(input.frontDoor),
      path: wellFormedText(input.path),
      requestedModel: wellFormedText(input.requestedModel),
      backendModel: wellFormedText(input.backendModel),
      stream: input.stream ? 1 : 0,
      policyVersion: wellFormedText(input.policyVersion ?? null),
      samplingParams: JSON.stringify(input.samplingParams),
      metadata: JSON.stringify(input.metadata),
      startedAt: input.startedAt,
      instanceId: input.instanceId ?? null,
      backendId: wellFormedText(input.backendId ?? null),
    };
    const chat = input.chatRequestBody === undefined || input.chatRequestBody === null ? [] : [input.chatRequestBody];
    let seq: number;
    let storeBodies: () => Buffer[];
    if (claimSession !== null && insertCallWithSeq !== null) {
      claimSession(input.sessionId, input.startedAt, input.startedAt);
      // the bodies' lookup goes with the insert: one round trip
      storeBodies = bodies.writeLater([input.requestBody, input.backendRequestBody, ...chat]);
      seq = (insertCallWithSeq.get(columns) as { seq: number }).seq;
    } else {
      sessions.ensure(input.sessionId, {}, input.startedAt);
      sessions.touch(input.sessionId, input.startedAt);
      seq = (selectNextSeq.get(input.sessionId) as { seq: number }).seq;
      insertCall.run({ ...columns, seq });
      storeBodies = bodies.writeLater([input.requestBody, input.backendRequestBody, ...chat]);
    }
    const [requestBody, backendRequestBody, chatRequestBody] = storeBodies();
    insertBodies(callId, requestBody as Buffer, backendRequestBody as Buffer, chatRequestBody ?? null);
    return seq;
  });

  const finish = database.transaction((callId: string, columns: FinishColumns, prompt: Int32Array | null) => {
    // the prompt's parent candidates are read with the call's state: one round trip
    const encodeLink = prompt === null ? null : delta.encodeLater(callId, prompt);
    const state = selectState.get(callId);
    if (state === undefined) throw new TokentapError('STORE_CALL_NOT_FOUND', { message: `no call with id ${callId}` });
    if (state.status !== 'in_progress') {
      throw new TokentapError('STORE_CALL_ALREADY_FINISHED', { message: `call ${callId} is already finished (status ${state.status})` });
    }
    const link = encodeLink === null ? null : encodeLink();
    const { metadataPatch } = columns;
    const stopReason = columns.call.stopReason ?? null;
    updateCall({
      ...columns.call,
      // PostgreSQL keeps it as jsonb (a stop string or a token id, which SQLite's ANY column tells apart itself)
      stopReason: postgres && stopReason !== null ? JSON.stringify(stopReason) : stopReason,
      metadata: metadataPatch === null ? state.metadata : JSON.stringify(mergePatch(JSON.parse(state.metadata), metadataPatch)),
      id: callId,
      promptParentId: link?.parentId ?? null,
      promptPrefixLength: link?.prefixLength ?? null,
      promptTail: link === null ? null : packInt32(link.tail),
    });
    updateBodies(columns.responseBody, columns.responseStream, callId);
  });

  return {
    beginCall(input) {
      const callId = input.callId ?? randomUUID();
      assertStorableId(callId, 'call id');
      assertStorableId(input.sessionId, 'session id');
      return { callId, seq: begin.immediate(callId, input) };
    },
    finishCall(callId, result) {
      // Validation, packing and compression happen before the write lock is taken.
      const prompt = result.promptTokenIds === null ? null : toTokenIdArray(result.promptTokenIds, 'promptTokenIds');
      const completion = result.completionTokenIds === null ? null : toTokenIdArray(result.completionTokenIds, 'completionTokenIds');
      finish.immediate(callId, toFinishColumns(result, prompt, completion), prompt);
      if (prompt !== null) delta.remember(callId, prompt, completion);
    },
    markIncomplete: (callIds) => markAll.immediate(callIds),
  };
}

interface FinishColumns {
  call: Record<string, string | number | Buffer | null>;
  /** what the end adds to the metadata written at begin (merged with mergePatch) */
  metadataPatch: Record<string, unknown> | null;
  responseBody: Buffer | null;
  responseStream: Buffer | null;
}

function toFinishColumns(result: FinishCallInput, prompt: Int32Array | null, completion: Int32Array | null): FinishColumns {
  if (!FINISHED_STATUSES.has(result.status)) {
    throw new TokentapError('STORE_INVALID_INPUT', { message: `a call cannot be finished with status ${String(result.status)}` });
  }
  const logprobs = result.completionLogprobs === null ? null : toLogprobArray(result.completionLogprobs);
  return {
    call: {
      status: result.status,
      tokenSource: result.tokenSource,
      finishReason: wellFormedText(result.finishReason),
      stopReason: wellFormedText(result.stopReason),
      usage: toNullableJson(result.usage),
      error: toNullableJson(result.error),
      httpStatus: result.httpStatus,
      flags: JSON.stringify(result.flags),
      endedAt: result.endedAt,
      timeToFirstTokenMs: result.timeToFirstTokenMs,
      totalMs: result.totalMs,
      // Ids when recorded (what training uses), else the backend's own count, for cheap session sums.
      promptTokens: prompt?.length ?? result.usage?.promptTokens ?? null,
      completionTokens: completion?.length ?? result.usage?.completionTokens ?? null,
      completionTokenIds: completion === null ? null : packInt32(completion),
      completionLogprobs: logprobs === null ? null : packFloat32(logprobs),
      // a failover's replica replaces the one picked at begin; none named keeps it
      backendId: wellFormedText(result.backendId ?? null),
      weightVersion: wellFormedText(result.weightVersion ?? null),
    },
    // what is only known at the end (backend retries) joins the metadata written at begin
    metadataPatch: result.metadata === undefined ? null : result.metadata,
    responseBody: result.responseBody === null || result.responseBody === undefined ? null : compressJson(result.responseBody),
    responseStream: result.responseStream === null || result.responseStream === undefined ? null : compressText(result.responseStream),
  };
}
