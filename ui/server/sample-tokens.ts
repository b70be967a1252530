import type { Sample } from '../../reconstruct/sample.js';
import type { CallRow } from '../../store/index.js';
import type { SampleSummary, SampleTokens } from '../viewer-api.js';
import type { TokenTexts } from './token-texts.js';

/**
 * GET /ui/api/sessions/:id/samples/:strategy/:index: the sample as parallel arrays, one entry per token, built in
 * one pass each (a 100k-token sample is a few MB of JSON, nothing quadratic).
 *
 * @example toSampleTokens(sample, summary, calls, texts).mask[sample.promptLength] // 1 when the first call sampled it
 */
export function toSampleTokens(
  sample: Sample,
  summary: SampleSummary,
  calls: readonly CallRow[],
  texts: TokenTexts | null,
): Omit<SampleTokens, 'samples'> {
  const length = sample.tokens.length;
  const tokenIds = Array.from(sample.tokens);
  const mask = Array.from(sample.lossMask);
  const logprobs = new Array<number | null>(length);
  for (let index = 0; index < length; index++) {
    const logprob = sample.logprobs[index] as number;
    // retokenized calls have no logprobs (NaN in the sample), context none at all
    logprobs[index] = mask[index] === 1 && !Number.isNaN(logprob) ? logprob : null;
  }
  return {
    sessionId: sample.sessionId,
    summary,
    tokenIds,
    texts: texts === null ? null : texts.of(sample.tokens),
    mask,
    logprobs,
    policyBands: policyBands(sample),
    calls: callSegments(sample, calls),
  };
}

/** Runs of trained tokens of one policy version: a context token or another version ends a band. */
export function policyBands(sample: Pick<Sample, 'lossMask' | 'policyVersions'>): SampleTokens['policyBands'] {
  const bands: SampleTokens['policyBands'] = [];
  let open: SampleTokens['policyBands'][number] | null = null;
  for (let index = 0; index < sample.lossMask.length; index++) {
    if (sample.lossMask[index] !== 1) {
      open = null;
      continue;
    }
    const version = sample.policyVersions[index] ?? null;
    if (open !== null && open.version === version && open.end === index) open.end = index + 1;
    else {
      open = { start: index, end: index + 1, version };
      bands.push(open);
    }
  }
  return bands;
}

/**
 * The tokens each call added to the sample, as reconstruct/build-sample.ts lays them out: call k's completion sits
 * right after its own prompt, and its prompt extends everything before it, so it added [end of call k-1, end of
 * its completion). From the calls' recorded lengths when they hold ids and add up to the sample; otherwise (calls
 * retokenized from text) from the sample's runs of trained tokens, one per call in order.
 */
export function callSegments(sample: Pick<Sample, 'tokens' | 'lossMask' | 'callIds'>, calls: readonly CallRow[]): SampleTokens['calls'] {
  const byId = new Map(calls.map((call) => [call.id, call]));
  const members = sample.callIds.map((callId) => byId.get(callId));
  const lengths = members.map((call) =>
    call?.promptTokenIds == null || call.completionTokenIds == null
      ? null
      : { prompt: call.promptTokenIds.length, completion: call.completionTokenIds.length },
  );
  const last = lengths.at(-1);
  const fromRows = lengths.every((entry) => entry !== null) && last != null && last.prompt + last.completion === sample.tokens.length;
  const spans = fromRows ? (lengths as Array<{ prompt: number; completion: number }>) : trainedRuns(sample.lossMask, sample.callIds.length);
  let start = 0;
  return sample.callIds.map((callId, index) => {
    const span = spans[index] ?? { prompt: start, completion: 0 };
    const segment = { callId, seq: members[index]?.seq ?? 0, start, completionStart: span.prompt, end: span.prompt + span.completion };
    start = segment.end;
    return segment;
  });
}

/** The first `count` runs of mask 1 as (start, length); a missing run (an empty completion) ends where the last did. */
function trainedRuns(mask: Uint8Array, count: number): Array<{ prompt: number; completion: number }> {
  const runs: Array<{ prompt: number; completion: number }> = [];
  let index = 0;
  while (index < mask.length && runs.length < count) {
    while (index < mask.length && mask[index] !== 1) index++;
    const start = index;
    while (index < mask.length && mask[index] === 1) index++;
    if (index > start) runs.push({ prompt: start, completion: index - start });
  }
  return runs;
}
