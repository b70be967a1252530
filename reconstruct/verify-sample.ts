// Deliberately independent: this file reads only the raw call rows and the sample, and imports no other
// reconstruction code (types aside), so a bug in reconstruction cannot hide itself by being shared with its check.
import type { CallRow } from '../store/index.js';
import { untrustedFlags } from '../store/types.js';
import type { Sample } from './sample.js';

export type VerifyResult = { ok: true } | { ok: false; errors: string[] };

/** Errors listed before the rest are only counted. */
const MAX_ERRORS = 20;

/**
 * Checks the sample invariant against the store's call rows (docs/reconstruct.md, "The invariant"):
 * - every mask-1 token is a completion id of one of the sample's calls, at the position where the tokens before
 *   it are exactly that call's prompt ids followed by its earlier completion ids, with the logprob the backend
 *   reported (bit-equal float32) and that call's policy version;
 * - every mask-0 token is recorded context: it lies inside some call's prompt ids, at the same position, with
 *   logprob 0 and no policy version;
 * - every completion id of every listed call is in the sample with mask 1 (once), and no flagged (an untrusted flag) or
 *   retokenized call is trained; all arrays have one entry per token.
 *
 * @example
 * const result = verifySample(sample, store.listCalls(sample.sessionId));
 * if (!result.ok) throw new Error(result.errors.join('\n'));
 */
export function verifySample(sample: Sample, calls: readonly CallRow[]): VerifyResult {
  const errors: string[] = [];
  const length = sample.tokens.length;
  if (sample.lossMask.length !== length) errors.push(`lossMask has ${sample.lossMask.length} entries for ${length} tokens`);
  if (sample.logprobs.length !== length) errors.push(`logprobs has ${sample.logprobs.length} entries for ${length} tokens`);
  if (sample.policyVersions.length !== length) errors.push(`policyVersions has ${sample.policyVersions.length} entries for ${length} tokens`);
  if (!sample.faithful) errors.push('the sample is not faithful: its ids come from retokenized text, not from the backend');
  if (!(sample.lossWeight >= 0 && sample.lossWeight <= 1)) errors.push(`lossWeight ${sample.lossWeight} is not within [0, 1]`);
  const rows = findRows(sample, calls, errors);
  if (errors.length > 0 || rows.length === 0) return fail(errors);
  const owner = new Int32Array(length).fill(-1);
  let contextEnd = 0;
  for (const [position, row] of rows.entries()) {
    checkCall(sample, row, position, owner, errors);
    contextEnd = Math.max(contextEnd, row.promptTokenIds?.length ?? 0);
  }
  const firstPrompt = rows[0]?.promptTokenIds?.length;
  if (sample.promptLength !== firstPrompt) errors.push(`promptLength is ${sample.promptLength}, the first call's prompt has ${firstPrompt} ids`);
  checkEveryToken(sample, owner, contextEnd, errors);
  return errors.length === 0 ? { ok: true } : fail(errors);
}

function findRows(sample: Sample, calls: readonly CallRow[], errors: string[]): CallRow[] {
  if (sample.callIds.length === 0) errors.push('the sample names no call');
  if (new Set(sample.callIds).size !== sample.callIds.length) errors.push('the sample names a call twice');
  const byId = new Map(calls.map((call) => [call.id, call]));
  const rows: CallRow[] = [];
  for (const callId of sample.callIds) {
    const row = byId.get(callId);
    if (row === undefined) errors.push(`call ${callId} is not among the given call rows`);
    else if (row.sessionId !== sample.sessionId) errors.push(`call ${callId} belongs to session ${row.sessionId}, not ${sample.sessionId}`);
    else rows.push(row);
  }
  for (let index = 1; index < rows.length; index++) {
    if ((rows[index] as CallRow).seq <= (rows[index - 1] as CallRow).seq) errors.push(`callIds are not in call order at ${index}`);
  }
  return rows;
}

/** One call: its prompt is the sample's prefix, its completion follows with mask 1, its logprobs and version. */
function checkCall(sample: Sample, row: CallRow, position: number, owner: Int32Array, errors: string[]): void {
  const name = `call ${row.id} (#${row.seq})`;
  const prompt = row.promptTokenIds;
  const completion = row.completionTokenIds;
  const logprobs = row.completionLogprobs;
  if (row.tokenSource !== 'backend') return void errors.push(`${name} has no backend token ids (tokenSource ${row.tokenSource})`);
  const untrusted = untrustedFlags(row.flags);
  if (untrusted.length > 0) return void errors.push(`${name} is flagged ${untrusted.join(', ')}: its ids cannot be trained`);
  if (prompt === null || completion === null || logprobs === null) return void errors.push(`${name} lacks prompt ids, completion ids or logprobs`);
  if (logprobs.length !== completion.length)
    return void errors.push(`${name} has ${logprobs.length} logprobs for ${completion.length} completion ids`);
  const end = prompt.length + completion.length;
  if (end > sample.tokens.length) return void errors.push(`${name} needs ${end} tokens, the sample has ${sample.tokens.length}`);
  const promptMismatch = firstMismatch(sample.tokens, 0, prompt);
  if (promptMismatch !== -1)
    errors.push(`${name}: token ${promptMismatch} is ${sample.tokens[promptMismatch]}, its prompt has ${prompt[promptMismatch]} there`);
  const completionMismatch = firstMismatch(sample.tokens, prompt.length, completion);
  if (completionMismatch !== -1) {
    const at = prompt.length + completionMismatch;
    errors.push(`${name}: token ${at} is ${sample.tokens[at]}, it sampled ${completion[completionMismatch]} there`);
  }
  const sampleBits = new Uint32Array(sample.logprobs.buffer, sample.logprobs.byteOffset, sample.logprobs.length);
  const rowBits = new Uint32Array(logprobs.buffer, logprobs.byteOffset, logprobs.length);
  for (let index = 0; index < completion.length; index++) {
    const at = prompt.length + index;
    if (owner[at] !== -1) errors.push(`token ${at} is claimed as sampled by two calls`);
    owner[at] = position;
    if (sample.lossMask[at] !== 1) errors.push(`${name}: sampled token ${at} has mask ${sample.lossMask[at]}`);
    if (sampleBits[at] !== rowBits[index])
      errors.push(`${name}: token ${at} has logprob ${sample.logprobs[at]}, the backend reported ${logprobs[index]}`);
    if (sample.policyVersions[at] !== row.policyVersion)
      errors.push(`${name}: token ${at} has policy version ${String(sample.policyVersions[at])}, the call ${String(row.policyVersion)}`);
  }
}

/** Tokens no call sampled must be context (inside some call's prompt, checked equal above) and carry nothing. */
function checkEveryToken(sample: Sample, owner: Int32Array, contextEnd: number, errors: string[]): void {
  for (let at = 0; at < sample.tokens.length; at++) {
    const mask = sample.lossMask[at];
    if (owner[at] !== -1) continue;
    if (mask !== 0) errors.push(`token ${at} has mask ${mask} but none of the calls sampled it there`);
    if (at >= contextEnd) errors.push(`token ${at} is neither sampled by the calls nor part of any call's prompt`);
    if (!Object.is(sample.logprobs[at], 0)) errors.push(`context token ${at} has logprob ${sample.logprobs[at]}, not 0`);
    if (sample.policyVersions[at] !== null) errors.push(`context token ${at} has policy version ${String(sample.policyVersions[at])}`);
    if (errors.length > MAX_ERRORS * 4) return;
  }
}

/** Index into `expected` of the first id that differs from `tokens` read from `start`, or -1. */
function firstMismatch(tokens: Int32Array, start: number, expected: Int32Array): number {
  for (let index = 0; index < expected.length; index++) if (tokens[start + index] !== expected[index]) return index;
  return -1;
}

function fail(errors: string[]): VerifyResult {
  if (errors.length <= MAX_ERRORS) return { ok: false, errors };
  return { ok: false, errors: [...errors.slice(0, MAX_ERRORS), `... and ${errors.length - MAX_ERRORS} more`] };
}
