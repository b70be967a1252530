import type { Sample, SampleStatus } from './sample.js';

/** The statuses whose samples count in a rollout's loss when the caller names none: runs that finished. */
export const DEFAULT_WEIGHED_STATUSES: readonly SampleStatus[] = ['completed', 'truncated'];

/**
 * Gives each trainable sample of one rollout the weight 1/k, k being the rollout's trainable samples, so a rollout
 * split into k samples counts once, like one unsplit rollout (the bias rLLM PR #512 describes). A trainer
 * multiplies each sample's (token-mean) loss by its weight. A sample is trainable when its status is one of
 * `weighedStatuses` (default `completed` and `truncated`) and it has a trained token; every other sample (failed
 * or aborted calls, nothing trained) gets 0: kept to be seen, not counted. Reconstruction calls it once, on the
 * samples it hands out (after the caller's `keepSample` drops), before any sample leaves reconstruct/.
 *
 * @example
 * assignLossWeights(samples); // three completed samples -> 1/3 each
 */
export function assignLossWeights(samples: readonly Sample[], weighedStatuses: readonly SampleStatus[] = DEFAULT_WEIGHED_STATUSES): void {
  const byRollout = new Map<string, Sample[]>();
  for (const sample of samples) {
    sample.lossWeight = 0;
    if (!weighedStatuses.includes(sample.status) || !sample.lossMask.includes(1)) continue;
    const group = byRollout.get(sample.rolloutId);
    if (group === undefined) byRollout.set(sample.rolloutId, [sample]);
    else group.push(sample);
  }
  for (const group of byRollout.values()) for (const sample of group) sample.lossWeight = 1 / group.length;
}
