import { randomUUID } from 'node:crypto';
import { dialectOf, queuedAll, queuedRun, type SqlDatabase } from './sql/sql-database.js';
import { mergePatch } from './merge-patch.js';
import type { BodyStore } from './body-store.js';
import { toNullableJson } from './call-record.js';
import { compressJson, compressText } from './compress-json.js';
import { packFloat32, packInt32, toLogprobArray, toTokenIdArray } from './pack-tokens.js';
import type { PromptCandidate, PromptDelta, PromptLink } from './prompt-delta.js';
import type { SessionQueries } from './session-queries.js';
import { assertStorableId } from './storable-id.js';
import { wellFormedText } from './well-formed-text.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import type { BeginCallInput, CallStatus, FinishCallInput } from './types.js';
import { WriterMemory } from './writer-memory.js';

const FINISHED_STATUSES: ReadonlySet<CallStatus> = new Set(['ok', 'backend_error', 'aborted']);

export interface CallWriter {
  beginCall(input: BeginCallInput): { callId: string; seq: number };
  finishCall(callId: string, result: FinishCallInput): void;
  /** beginCall inside a batch, waiting for no answer before its COMMIT: call the result once the batch committed */
  beginCallLater(input: BeginCallInput): () => { callId: string; seq: number };
  /**
   * finishCall inside a batch, waiting for no answer before its COMMIT where the writer remembers the call: call the
   * result once the batch committed; it throws what finishCall would have (the call was not `in_progress`: no row
   * changed).
   */
  finishCallLater(callId: string, result: FinishCallInput): () => void;
  markIncomplete(callIds: readonly string[]): number;
  /** A transaction it wrote in did not commit: forgets what it remembers of its writes (body parts, prompt candidates). */
  forget(): void;
}

/**
 * The write side of calls. Each method is one IMMEDIATE transaction: the write lock is taken before
 * the first read, so `seq` and the in_progress check cannot race another connection.
 *
 * On PostgreSQL each statement waited for is a round trip, so a call's begin and its end are each one round trip
 * where they can be (issue 17): every statement is queued and sent with the COMMIT. The begin's seq comes back with
 * the COMMIT's answer, its bodies' lookup is skipped when the parts it would find are known (blob-store.ts), and the
 * end takes its session, metadata and prompt-parent candidates from what this writer wrote (writer-memory.ts)
 * instead of reading them; its update changes the row only while it is `in_progress`, and says whether it did with
 * the COMMIT's answer (an end that changed nothing throws then, as it would have before writing).
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
    ? queuedAll(
        database.prepare<[Record<string, unknown>], { seq: number }>(
          `INSERT INTO calls (id, session_id, seq, status, front_door, path, requested_model, backend_model, stream,
                            policy_version, sampling_params, metadata, started_at, instance_id, backend_id)
         SELECT @id, @sessionId, coalesce(max(seq), 0) + 1, 'in_progress', @frontDoor, @path, @requestedModel, @backendModel,
                @stream, @policyVersion, @samplingParams, @metadata, @startedAt, @instanceId, @backendId
           FROM calls WHERE session_id = @sessionId
         RETURNING seq`,
        ),
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
    database.prepare<[Record<string, unknown>]>(`UPDATE calls SET status = @status, token_source = @tokenSource, finish_reason = @finishReason,
            stop_reason = ${postgres ? '@stopReason::jsonb' : '@stopReason'}, usage = @usage, error = @error, http_status = @httpStatus, flags = @flags,
            ended_at = @endedAt, time_to_first_token_ms = @timeToFirstTokenMs, total_ms = @totalMs,
            prompt_tokens = @promptTokens, completion_tokens = @completionTokens,
            prompt_parent_id = @promptParentId, prompt_prefix_length = @promptPrefixLength, prompt_tail = @promptTail,
            completion_token_ids = @completionTokenIds, completion_logprobs = @completionLogprobs,
            backend_id = coalesce(@backendId, backend_id), weight_version = @weightVersion,
            metadata = @metadata WHERE id = @id AND status = 'in_progress'`),
  );
  const updateBodies = queuedRun(
    database.prepare<[Buffer | null, Buffer | null, string]>(`UPDATE call_bodies SET response_body = ?, response_stream = ? WHERE call_id = ?`),
  );
  // PostgreSQL: the end's two updates in one statement, the bodies' only where the call's changed, saying whether it did
  const finishRow = postgres
    ? queuedAll(
        database.prepare<[Record<string, unknown>], { finished: number }>(
          `WITH finished AS (UPDATE calls SET status = @status, token_source = @tokenSource, finish_reason = @finishReason,
            stop_reason = ${postgres ? '@stopReason::jsonb' : '@stopReason'}, usage = @usage, error = @error, http_status = @httpStatus, flags = @flags,
            ended_at = @endedAt, time_to_first_token_ms = @timeToFirstTokenMs, total_ms = @totalMs,
            prompt_tokens = @promptTokens, completion_tokens = @completionTokens,
            prompt_parent_id = @promptParentId, prompt_prefix_length = @promptPrefixLength, prompt_tail = @promptTail,
            completion_token_ids = @completionTokenIds, completion_logprobs = @completionLogprobs,
            backend_id = coalesce(@backendId, backend_id), weight_version = @weightVersion,
            metadata = @metadata WHERE id = @id AND status = 'in_progress' RETURNING id),
                bodies AS (UPDATE call_bodies SET response_body = @responseBody, response_stream = @responseStream
                            WHERE call_id IN (SELECT id FROM finished))
           SELECT count(*) AS finished FROM finished`,
        ),
      )
    : null;
  const memory = postgres ? new WriterMemory() : null;

  // in place: on a full disk this needs no new page where a finish with its bodies and ids does
  const markIncomplete = database.prepare<[string]>(`UPDATE calls SET status = 'incomplete' WHERE id = ? AND status = 'in_progress'`);
  const markAll = database.transaction((callIds: readonly string[]): number =>
    callIds.reduce((changed, callId) => changed + markIncomplete.run(callId).changes, 0),
  );

  // inside a caller's transaction (a batch) a statement whose failure is learnt only at the COMMIT would fail the
  // whole batch: beginCall and finishCall wait for their answers inside their own savepoint there, so a failed write
  // rolls back alone as the contract says; beginCallLater and finishCallLater (the recorder) leave them to the COMMIT
  const inBatch = (): boolean => database.inTransaction;
  const begin = database.transaction((callId: string, input: BeginCallInput, waitForSeq: boolean): (() => number) => {
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
    let seq: () => number;
    let storeBodies: () => { envelopes: Buffer[]; stored: () => void };
    if (claimSession !== null && insertCallWithSeq !== null) {
      claimSession(input.sessionId, input.startedAt, input.startedAt);
      // the bodies' lookup, when one is needed, goes with the insert; the seq comes back with the COMMIT
      storeBodies = bodies.writeLater([input.requestBody, input.backendRequestBody, ...chat]);
      const inserted = insertCallWithSeq(columns);
      seq = () => (inserted()[0] as { seq: number }).seq;
      if (waitForSeq) seq();
    } else {
      sessions.ensure(input.sessionId, {}, input.startedAt);
      sessions.touch(input.sessionId, input.startedAt);
      const next = (selectNextSeq.get(input.sessionId) as { seq: number }).seq;
      insertCall.run({ ...columns, seq: next });
      seq = () => next;
      storeBodies = bodies.writeLater([input.requestBody, input.backendRequestBody, ...chat]);
    }
    const { envelopes, stored } = storeBodies();
    const [requestBody, backendRequestBody, chatRequestBody] = envelopes;
    insertBodies(callId, requestBody as Buffer, backendRequestBody as Buffer, chatRequestBody ?? null);
    memory?.begun(callId, { sessionId: input.sessionId, metadata: columns.metadata, seq });
    return () => {
      stored();
      return seq();
    };
  });

  /** SQLite: the end as one transaction that reads the call's state first and throws at once. */
  const finishReading = database.transaction((callId: string, columns: FinishColumns, prompt: Int32Array | null): void => {
    const candidates = prompt === null ? null : delta.candidatesLater(callId);
    const state = readState(callId);
    const link = prompt === null || candidates === null ? null : delta.encode(prompt, candidates());
    updateCall(updateParameters(callId, columns, link, state.metadata));
    updateBodies(columns.responseBody, columns.responseStream, callId);
  });

  /** PostgreSQL: the end's update, after a read of the call's state only where the writer does not remember it. */
  const finishQueued = database.transaction(
    (
      callId: string,
      columns: FinishColumns,
      prompt: Int32Array | null,
      waitForAnswer: boolean,
    ): { finished: () => number; sessionId: string; candidates: readonly PromptCandidate[] | null } => {
      const remembered = memory?.call(callId);
      const known = remembered === undefined ? undefined : memory?.candidates(remembered.sessionId, remembered);
      let sessionId: string;
      let metadata: string;
      let candidates: readonly PromptCandidate[] | null;
      if (remembered !== undefined && (prompt === null || known !== undefined)) {
        ({ sessionId, metadata } = remembered);
        candidates = known ?? null;
      } else {
        // the prompt parent's candidates are read with the call's state: one round trip
        const read = prompt === null ? null : delta.candidatesLater(callId);
        const state = readState(callId);
        ({ session_id: sessionId, metadata } = state);
        candidates = read === null ? null : read();
      }
      const link = prompt === null || candidates === null ? null : delta.encode(prompt, candidates);
      const answer = (finishRow as NonNullable<typeof finishRow>)({
        ...updateParameters(callId, columns, link, metadata),
        responseBody: columns.responseBody,
        responseStream: columns.responseStream,
      });
      const finished = (): number => Number(answer()[0]?.finished ?? 0);
      if (waitForAnswer && finished() === 0) notInProgress(callId);
      return { finished, sessionId, candidates };
    },
  );

  /** An end changed no row: says why, as the read before the update would have. */
  function notInProgress(callId: string): never {
    memory?.forget(callId);
    readState(callId);
    throw new TokentapError('STORE_CALL_NOT_FOUND', { message: `no call with id ${callId} in progress` });
  }

  function readState(callId: string): { session_id: string; metadata: string } {
    const state = selectState.get(callId);
    if (state === undefined) throw new TokentapError('STORE_CALL_NOT_FOUND', { message: `no call with id ${callId}` });
    if (state.status !== 'in_progress') {
      throw new TokentapError('STORE_CALL_ALREADY_FINISHED', { message: `call ${callId} is already finished (status ${state.status})` });
    }
    return state;
  }

  function updateParameters(callId: string, columns: FinishColumns, link: PromptLink | null, metadata: string): Record<string, unknown> {
    const { metadataPatch } = columns;
    const stopReason = columns.call.stopReason ?? null;
    return {
      ...columns.call,
      // PostgreSQL keeps it as jsonb (a stop string or a token id, which SQLite's ANY column tells apart itself)
      stopReason: postgres && stopReason !== null ? JSON.stringify(stopReason) : stopReason,
      metadata: metadataPatch === null ? metadata : JSON.stringify(mergePatch(JSON.parse(metadata), metadataPatch)),
      id: callId,
      promptParentId: link?.parentId ?? null,
      promptPrefixLength: link?.prefixLength ?? null,
      promptTail: link === null ? null : packInt32(link.tail),
    };
  }

  function beginCallLater(input: BeginCallInput, waitForSeq = false): () => { callId: string; seq: number } {
    const callId = input.callId ?? randomUUID();
    assertStorableId(callId, 'call id');
    assertStorableId(input.sessionId, 'session id');
    const seq = begin.immediate(callId, input, waitForSeq);
    return () => ({ callId, seq: seq() });
  }

  function finishCallLater(callId: string, result: FinishCallInput, waitForAnswer = false): () => void {
    // Validation, packing and compression happen before the write lock is taken.
    const prompt = result.promptTokenIds === null ? null : toTokenIdArray(result.promptTokenIds, 'promptTokenIds');
    const completion = result.completionTokenIds === null ? null : toTokenIdArray(result.completionTokenIds, 'completionTokenIds');
    const columns = toFinishColumns(result, prompt, completion);
    if (!postgres) {
      finishReading.immediate(callId, columns, prompt);
      return () => {
        if (prompt !== null) delta.remember(callId, prompt, completion);
      };
    }
    const { finished, sessionId, candidates } = finishQueued.immediate(callId, columns, prompt, waitForAnswer);
    return () => {
      // nothing was written
      if (finished() === 0) notInProgress(callId);
      if (prompt !== null) delta.remember(callId, prompt, completion);
      memory?.finished(callId, sessionId, prompt === null ? null : prompt.length + (completion?.length ?? 0), candidates);
    };
  }

  return {
    beginCall: (input) => beginCallLater(input, inBatch())(),
    finishCall: (callId, result) => finishCallLater(callId, result, inBatch())(),
    beginCallLater: (input) => beginCallLater(input),
    finishCallLater: (callId, result) => finishCallLater(callId, result),
    markIncomplete: (callIds) => markAll.immediate(callIds),
    forget() {
      memory?.clear();
      bodies.forget();
    },
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
