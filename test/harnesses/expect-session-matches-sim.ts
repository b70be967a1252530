import { expect } from 'vitest';
import type { SimGenerationRecord } from '../../sim/index.js';
import type { CallRow, Store } from '../../store/types.js';
import { HARNESS_BACKEND } from './harness-backend.js';

/**
 * Asserts that the session exists and that every one of its calls holds exactly what the simulator generated
 * for it (the simulator's own log): prompt ids, completion ids (EOS included), one float32 logprob per id, the
 * finish reason, no flags, served by a replica of the run's flavour (harness-backend.ts). Calls are paired with
 * log records by the simulator's response id (`chatcmpl-…`; SGLang's `/generate`: the request's `rid`), found in
 * the stored response body or the raw upstream stream; every record must belong to one call, so no generation went
 * unrecorded or into another session. Returns the calls with their records, in seq order.
 */
export function expectSessionMatchesSim(
  store: Store,
  session: string,
  log: readonly SimGenerationRecord[],
): Array<{ call: CallRow; record: SimGenerationRecord }> {
  expect(store.getSession(session), `session ${session} in the store`).not.toBeNull();
  expect(store.listSessions().map((row) => row.id)).toEqual([session]);
  const calls = store.listCalls(session);
  expect(calls.map((call) => call.seq)).toEqual(calls.map((_, index) => index + 1));
  expect(calls, 'one recorded call per simulator generation').toHaveLength(log.length);
  const pairs = calls.map((call) => ({ call, record: recordOf(store, call, log) }));
  expect(new Set(pairs.map((pair) => pair.record.requestId)).size).toBe(log.length);
  for (const { call, record } of pairs) {
    const label = `call ${call.seq} (${record.requestId})`;
    expect(call.status, label).toBe('ok');
    expect(call.tokenSource, label).toBe('backend');
    expect(Array.from(call.promptTokenIds ?? []), label).toEqual(record.promptTokenIds);
    expect(Array.from(call.completionTokenIds ?? []), label).toEqual(record.completionTokenIds);
    expect(Array.from(call.completionLogprobs ?? []), label).toEqual(record.logprobs.map((logprob) => Math.fround(logprob)));
    expect(call.finishReason, label).toBe(record.finishReason);
    expect(call.flags, label).toEqual([]);
    // served by a replica of the flavour this run is about: SGLang names its weight version, vLLM none
    expect(call.backendId, label).toMatch(HARNESS_BACKEND === 'sglang' ? /^sglang-/ : /^default$/);
    expect(call.weightVersion, label).toBe(HARNESS_BACKEND === 'sglang' ? 'default' : null);
  }
  return pairs;
}

function recordOf(store: Store, call: CallRow, log: readonly SimGenerationRecord[]): SimGenerationRecord {
  const bodies = store.getCallBodies(call.id);
  const stored = `${JSON.stringify(bodies?.responseBody ?? null)}\n${bodies?.responseStream ?? ''}`;
  const record = log.find((candidate) => stored.includes(candidate.requestId));
  if (record === undefined) throw new Error(`call ${call.seq} (${call.id}): none of the simulator's response ids is in its stored response`);
  return record;
}
