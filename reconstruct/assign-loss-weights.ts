import type { Sample } from './sample.js';

/**
 * Gives each trainable sample of one rollout the weight 1/k, k being the rollout's trainable samples, so a rollout
 * split into k samples counts once, like one unsplit rollout (the bias rLLM PR #512 describes). A trainer
 * multiplies each sample's (token-mean) loss by its weight. Samples of failed calls (status `failed` or `aborted`)
 * and samples without a trained token get 0: they are kept to be seen, not counted.
 *
 * @example
 * assignLossWeights(samples); // three completed samples -> 1/3 each
 */
export function assignLossWeights(samples: readonly Sample[]): void {
  const byRollout = new Map<string, Sample[]>();
  for (const sample of samples) {
    sample.lossWeight = 0;
    if (!isTrainable(sample)) continue;
    const group = byRollout.get(sample.rolloutId);
    if (group === undefined) byRollout.set(sample.rolloutId, [sample]);
    else group.push(sample);
  }
  for (const group of byRollout.values()) for (const sample of group) sample.lossWeight = 1 / group.length;
}

function isTrainable(sample: Sample): boolean {
  return (sample.status === 'completed' || sample.status === 'truncated') && sample.lossMask.includes(1);
}
