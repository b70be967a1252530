import { isDeepStrictEqual } from 'node:util';
import type { CallRow, Store } from '../store/types.js';
import type { SimGenerationRecord } from '../sim/index.js';
import type { AcknowledgedCall } from './kill-recovery-client.js';

/** What the store holds after the kills, checked against the clients and the simulator. */
export interface RecoveryVerdict {
  /** acknowledged calls found `ok` and equal, token for token, to what the simulator generated and the client got */
  verified: number;
  /** acknowledged calls with no `ok` row */
  lost: number;
  /** rows (acknowledged or not) whose data differs from the simulator's or the client's */
  wrong: number;
  /** `ok` rows the client never got in full: committed, then killed before the last byte (allowed, and verified) */
  committedUnacknowledged: number;
  /** rows of calls cut by a kill, marked `incomplete` at the next start */
  incomplete: number;
  /** rows in the clients' sessions */
  rows: number;
  violations: string[];
}

/**
 * Checks the promise "no acknowledged call is lost": every call a client received in full is `ok` in the store,
 * with the prompt ids, completion ids and logprobs the simulator generated, the request the client sent and the
 * answer it got; every other row is either such a correct `ok` row or `incomplete` with nothing half-written.
 *
 * @example const verdict = verifyRecoveredStore(store, sessionIds, ledger.acknowledged, simRecords);
 */
export function verifyRecoveredStore(
  store: Store,
  sessionIds: readonly string[],
  acknowledged: readonly AcknowledgedCall[],
  simRecords: ReadonlyMap<string, SimGenerationRecord>,
): RecoveryVerdict {
  const verdict: RecoveryVerdict = { verified: 0, lost: 0, wrong: 0, committedUnacknowledged: 0, incomplete: 0, rows: 0, violations: [] };
  const acknowledgedIds = new Set(acknowledged.map((call) => call.callId));
  const rows = new Map<string, CallRow>();
  const usedRecords = new Set<string>();
  for (const sessionId of sessionIds) {
    const calls = store.listCalls(sessionId);
    if (!calls.every((call, index) => call.seq === index + 1)) verdict.violations.push(`${sessionId}: seq is not 1..${calls.length}`);
    verdict.rows += calls.length;
    for (const call of calls) {
      rows.set(call.id, call);
      const problem = checkRow(store, call, simRecords, usedRecords);
      if (problem !== null) {
        verdict.wrong++;
        verdict.violations.push(`${sessionId} call ${call.id} (seq ${call.seq}): ${problem}`);
      } else if (call.status === 'incomplete') verdict.incomplete++;
      else if (!acknowledgedIds.has(call.id)) verdict.committedUnacknowledged++;
    }
  }
  for (const call of acknowledged) {
    const row = rows.get(call.callId);
    if (row?.status !== 'ok') {
      verdict.lost++;
      verdict.violations.push(`LOST: ${call.sessionId} call ${call.callId} was received in full but is ${row === undefined ? 'absent' : row.status}`);
      continue;
    }
    const problem = checkClientView(store, call, simRecords.get(call.responseId));
    if (problem === null) verdict.verified++;
    else {
      verdict.wrong++;
      verdict.violations.push(`${call.sessionId} call ${call.callId}: ${problem}`);
    }
  }
  return verdict;
}

/** A row as the kills may leave it: `ok` and exactly the simulator's generation, or `incomplete` and empty. */
function checkRow(store: Store, call: CallRow, simRecords: ReadonlyMap<string, SimGenerationRecord>, usedRecords: Set<string>): string | null {
  if (call.status === 'incomplete') {
    return call.completionTokenIds === null && call.completionLogprobs === null ? null : 'incomplete but holds completion tokens (half-written)';
  }
  if (call.status !== 'ok') return `status ${call.status}: a kill leaves calls ok or incomplete`;
  const responseId = (store.getCallBodies(call.id)?.responseBody as { id?: unknown } | undefined)?.id;
  const record = typeof responseId === 'string' ? simRecords.get(responseId) : undefined;
  if (record === undefined) return `ok, but its response id ${String(responseId)} is not one the simulator generated`;
  if (usedRecords.has(record.requestId)) return `a second row holds the simulator's generation ${record.requestId}`;
  usedRecords.add(record.requestId);
  if (call.tokenSource !== 'backend' || call.flags.length > 0) return `token source ${call.tokenSource}, flags ${call.flags.join(',')}`;
  if (!sameNumbers(call.promptTokenIds, record.promptTokenIds)) return "prompt ids differ from the simulator's";
  if (!sameNumbers(call.completionTokenIds, record.completionTokenIds)) return "completion ids differ from the simulator's";
  if (
    !sameNumbers(
      call.completionLogprobs,
      record.logprobs.map((logprob) => Math.fround(logprob)),
    )
  )
    return "logprobs differ from the simulator's";
  if (call.finishReason !== record.finishReason) return `finish reason ${call.finishReason}, simulator ${record.finishReason}`;
  return null;
}

/** The acknowledged call's row holds the request the client sent and the answer it received. */
function checkClientView(store: Store, call: AcknowledgedCall, record: SimGenerationRecord | undefined): string | null {
  const bodies = store.getCallBodies(call.callId);
  const stored = bodies?.responseBody as { id?: unknown; choices?: Array<{ message?: Record<string, unknown> }>; usage?: unknown } | undefined;
  if (record === undefined || stored?.id !== call.responseId)
    return `the client got response ${call.responseId}, the store holds ${String(stored?.id)}`;
  if (!isDeepStrictEqual(bodies?.requestBody, call.requestBody)) return 'the stored request body differs from the one the client sent';
  if (call.content !== (record.content ?? ''))
    return `the client got content ${JSON.stringify(call.content)}, the simulator generated ${JSON.stringify(record.content)}`;
  const toolCalls = call.toolCalls.map((toolCall) => ({ name: toolCall.name, arguments: JSON.parse(toolCall.arguments) as unknown }));
  if (
    !isDeepStrictEqual(
      toolCalls,
      record.toolCalls.map((toolCall) => ({ name: toolCall.name, arguments: JSON.parse(toolCall.arguments) as unknown })),
    )
  )
    return 'the client got other tool calls than the simulator generated';
  if (call.finishReason !== record.finishReason) return `the client got finish reason ${call.finishReason}, the simulator ${record.finishReason}`;
  if (call.body !== null) {
    const message = (call.body.choices as Array<{ message?: Record<string, unknown> }> | undefined)?.[0]?.message;
    const storedMessage = stored.choices?.[0]?.message;
    if (message?.content !== storedMessage?.content || !isDeepStrictEqual(message?.tool_calls, storedMessage?.tool_calls))
      return "the client's message differs from the stored response body";
    if (!isDeepStrictEqual(call.body.usage, stored.usage)) return "the client's usage differs from the stored response body";
  }
  return null;
}

function sameNumbers(actual: ArrayLike<number> | null, expected: readonly number[]): boolean {
  return actual !== null && isDeepStrictEqual(Array.from(actual), expected);
}
