import type { AdvantageOptions } from './export-options.js';

/** Added to the group's standard deviation before dividing (verl and slime use 1e-6). */
export const DEFAULT_ADVANTAGE_EPSILON = 1e-6;

/**
 * The advantage of each rollout of one group from its reward (docs/export.md, "Advantages and loss weights").
 * `rewards[i]` is rollout i's reward, null when it has none; the answer has one entry per rollout, null for a
 * rollout without a reward and for every rollout under estimator `none`. The baseline is over the rewarded
 * rollouts only (n of them):
 * - `grpo`: (r - mean) / (std + epsilon), std with Bessel's correction (n - 1) as verl's `torch.std`;
 *   `normalizeStd: false` gives r - mean;
 * - `dr-grpo`: r - mean (Dr. GRPO; its loss normaliser is trainer configuration);
 * - `rloo`: r minus the mean of the others, = n / (n - 1) * (r - mean);
 * - a group of one gets 0 under every estimator: it carries no baseline information (verl would give r).
 *
 * Finite for rewards within ±MAX_REWARD_MAGNITUDE (the reward rule, store/find-reward-problem.ts; the export leaves
 * out rollouts with any other reward): sums, squares and advantages stay far below the float64 and float32 limits.
 * A group without spread gets 0 under `grpo` even when `epsilon` is 0 (not 0 / 0).
 *
 * @example
 * computeAdvantages([1, 0, 1], { estimator: 'rloo' }); // [0.5, -1, 0.5]
 * computeAdvantages([1, null], {}); // [0, null]
 */
export function computeAdvantages(rewards: ReadonlyArray<number | null>, options: AdvantageOptions = {}): Array<number | null> {
  const estimator = options.estimator ?? 'grpo';
  const rewarded = rewards.filter((reward): reward is number => reward !== null);
  if (estimator === 'none') return rewards.map(() => null);
  const count = rewarded.length;
  const mean = rewarded.reduce((total, reward) => total + reward, 0) / count;
  const scale = advantageScale(rewarded, mean, options);
  return rewards.map((reward) => {
    if (reward === null) return null;
    if (count < 2) return 0;
    return (reward - mean) * scale;
  });
}

/** What (r - mean) is multiplied by under the estimator (only called with two or more rewards). */
function advantageScale(rewarded: readonly number[], mean: number, options: AdvantageOptions): number {
  const count = rewarded.length;
  switch (options.estimator ?? 'grpo') {
    case 'rloo':
      return count / (count - 1);
    case 'dr-grpo':
      return 1;
    default:
      return options.normalizeStd === false || count < 2 ? 1 : stdScale(rewarded, mean, options.epsilon ?? DEFAULT_ADVANTAGE_EPSILON);
  }
}

/** 1 / (std + epsilon); 0 when that is 1 / 0 (epsilon 0, a group without spread), as 0 / epsilon gives for epsilon > 0. */
function stdScale(rewarded: readonly number[], mean: number, epsilon: number): number {
  const denominator = sampleStandardDeviation(rewarded, mean) + epsilon;
  return denominator === 0 ? 0 : 1 / denominator;
}

/**
 * The standard deviation with Bessel's correction (divides by n - 1, as `torch.std` and numpy's `ddof=1`);
 * 0 for fewer than two values.
 *
 * @example sampleStandardDeviation([1, 0, 1], 2 / 3); // Math.sqrt(1 / 3)
 */
export function sampleStandardDeviation(values: readonly number[], mean: number): number {
  if (values.length < 2) return 0;
  const squares = values.reduce((total, value) => total + (value - mean) ** 2, 0);
  return Math.sqrt(squares / (values.length - 1));
}

/**
 * True when a group's rewards carry no learning signal: at least one reward and all rewards equal (a group of one
 * included). Null rewards are ignored; a group with no reward at all is not zero-variance (it has no rewards).
 *
 * @example isZeroVariance([0.5, 0.5, null]); // true
 */
export function isZeroVariance(rewards: ReadonlyArray<number | null>): boolean {
  const rewarded = rewards.filter((reward): reward is number => reward !== null);
  return rewarded.length > 0 && rewarded.every((reward) => reward === rewarded[0]);
}

/**
 * The advantage options an export ran with, every default filled in and only what the estimator uses: what a
 * Parquet file records as its `advantage` metadata (issue 14: the default once went in as `{}`, which says nothing
 * about how the advantage column was made). `grpo` with its `normalizeStd` and, when it divides by the std, its
 * `epsilon`; `rloo`, `dr-grpo` and `none` take no parameter; `dropZeroVarianceGroups` always.
 *
 * @example
 * resolveAdvantageOptions({}); // { estimator: 'grpo', normalizeStd: true, epsilon: 1e-6, dropZeroVarianceGroups: false }
 * resolveAdvantageOptions({ estimator: 'rloo', epsilon: 0 }); // { estimator: 'rloo', dropZeroVarianceGroups: false }
 */
export function resolveAdvantageOptions(options: AdvantageOptions = {}): AdvantageOptions {
  const estimator = options.estimator ?? 'grpo';
  const dropZeroVarianceGroups = options.dropZeroVarianceGroups === true;
  if (estimator !== 'grpo') return { estimator, dropZeroVarianceGroups };
  if (options.normalizeStd === false) return { estimator, normalizeStd: false, dropZeroVarianceGroups };
  return { estimator, normalizeStd: true, epsilon: options.epsilon ?? DEFAULT_ADVANTAGE_EPSILON, dropZeroVarianceGroups };
}
