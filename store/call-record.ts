import { unpackFloat32 } from './pack-tokens.js';
import type { StoredPromptLink } from './prompt-chain.js';
import type { CallFlag, CallRow, CallStatus, TokenSource } from './types.js';

/** A `calls` row as the driver returns it. */
export interface CallRecord {
  id: string;
  session_id: string;
  seq: number;
  status: CallStatus;
  front_door: string;
  path: string;
  requested_model: string | null;
  backend_model: string | null;
  stream: number;
  policy_version: string | null;
  sampling_params: string;
  metadata: string;
  started_at: number;
  ended_at: number | null;
  time_to_first_token_ms: number | null;
  total_ms: number | null;
  token_source: TokenSource | null;
  finish_reason: string | null;
  stop_reason: string | number | null;
  usage: string | null;
  error: string | null;
  http_status: number | null;
  flags: string;
  prompt_parent_id: string | null;
  prompt_prefix_length: number | null;
  prompt_tail: Buffer | null;
  completion_token_ids: Buffer | null;
  completion_logprobs: Buffer | null;
  backend_id: string | null;
  weight_version: string | null;
}

/** Every column of CallRecord, for SELECTs (no `*`: a later migration's columns must not leak in). */
export const CALL_COLUMNS = `id, session_id, seq, status, front_door, path, requested_model, backend_model, stream,
  policy_version, sampling_params, metadata, started_at, ended_at, time_to_first_token_ms, total_ms, token_source,
  finish_reason, stop_reason, usage, error, http_status, flags, prompt_parent_id, prompt_prefix_length, prompt_tail,
  completion_token_ids, completion_logprobs, backend_id, weight_version`;

/** The row's stored prompt (parent, shared prefix, tail), or null when the call recorded no prompt ids. */
export function promptLinkOf(record: CallRecord): StoredPromptLink | null {
  if (record.prompt_tail === null || record.prompt_prefix_length === null) return null;
  return { parentId: record.prompt_parent_id, prefixLength: record.prompt_prefix_length, tail: record.prompt_tail };
}

/** A `calls` row as the driver returns it in raw mode: the values of CALL_COLUMNS, in that order. */
export type RawCallRecord = unknown[];

/**
 * A raw row (`statement.raw(true)`, CALL_COLUMNS in order) as a CallRecord. Raw mode skips the driver's building of
 * an object per row with 30 keys: reading a session's rows costs about 40% less.
 */
export function callRecordFromRaw(row: RawCallRecord): CallRecord {
  return {
    id: row[0] as string,
    session_id: row[1] as string,
    seq: row[2] as number,
    status: row[3] as CallStatus,
    front_door: row[4] as string,
    path: row[5] as string,
    requested_model: row[6] as string | null,
    backend_model: row[7] as string | null,
    stream: row[8] as number,
    policy_version: row[9] as string | null,
    sampling_params: row[10] as string,
    metadata: row[11] as string,
    started_at: row[12] as number,
    ended_at: row[13] as number | null,
    time_to_first_token_ms: row[14] as number | null,
    total_ms: row[15] as number | null,
    token_source: row[16] as TokenSource | null,
    finish_reason: row[17] as string | null,
    stop_reason: row[18] as string | number | null,
    usage: row[19] as string | null,
    error: row[20] as string | null,
    http_status: row[21] as number | null,
    flags: row[22] as string,
    prompt_parent_id: row[23] as string | null,
    prompt_prefix_length: row[24] as number | null,
    prompt_tail: row[25] as Buffer | null,
    completion_token_ids: row[26] as Buffer | null,
    completion_logprobs: row[27] as Buffer | null,
    backend_id: row[28] as string | null,
    weight_version: row[29] as string | null,
  };
}

/**
 * Maps a stored row to the public shape; the prompt ids are rebuilt by the caller (prompt-delta.ts)
 * because they may live partly in other rows, and the completion ids come unpacked with them.
 */
export function toCallRow(record: CallRecord, tokens: { promptTokenIds: Int32Array | null; completionTokenIds: Int32Array | null }): CallRow {
  return {
    id: record.id,
    sessionId: record.session_id,
    seq: record.seq,
    frontDoor: record.front_door,
    path: record.path,
    requestedModel: record.requested_model,
    backendModel: record.backend_model,
    stream: record.stream === 1,
    status: record.status,
    tokenSource: record.token_source,
    promptTokenIds: tokens.promptTokenIds,
    completionTokenIds: tokens.completionTokenIds,
    completionLogprobs: record.completion_logprobs === null ? null : unpackFloat32(record.completion_logprobs),
    finishReason: record.finish_reason,
    stopReason: record.stop_reason,
    samplingParams: JSON.parse(record.sampling_params) as Record<string, unknown>,
    metadata: JSON.parse(record.metadata) as Record<string, unknown>,
    usage: parseNullableJson(record.usage) as CallRow['usage'],
    error: parseNullableJson(record.error) as CallRow['error'],
    httpStatus: record.http_status,
    flags: JSON.parse(record.flags) as CallFlag[],
    policyVersion: record.policy_version,
    backendId: record.backend_id,
    weightVersion: record.weight_version,
    startedAt: record.started_at,
    endedAt: record.ended_at,
    timeToFirstTokenMs: record.time_to_first_token_ms,
    totalMs: record.total_ms,
  };
}

/** JSON text for a nullable column: null stays SQL NULL. */
export function toNullableJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function parseNullableJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}
