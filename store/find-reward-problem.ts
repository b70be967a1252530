/**
 * The largest magnitude a reward number may have: its value, each component and the components' sum
 * (docs/rollouts.md, "Rewards"). Far beyond any real reward, and small enough that everything computed from
 * rewards stays finite: a group's sum and mean, the squares in its standard deviation (1e60 each) and every
 * estimator's advantage (at most 2e30, `rloo` included), also in the float32 columns of verl, OpenRLHF and SkyRL
 * (float32 ends at 3.4e38). Without a bound, `{ a: 1.7e308, b: 1.7e308 }` sums to Infinity, and 1e308 beside
 * -1e308 in one group gives an infinite mean deviation (issue 12).
 */
export const MAX_REWARD_MAGNITUDE = 1e30;

/** What is wrong with a reward: the field (`value`, `components`, `components.<name>`) and why. */
export interface RewardProblem {
  field: string;
  problem: string;
}

const WITHIN = `a finite number within ±${MAX_REWARD_MAGNITUDE}`;

/**
 * The first problem of a reward, or null when it may be stored and exported: its value, every component and the
 * sum of the components (the value when none is given) must each be a finite number within
 * ±MAX_REWARD_MAGNITUDE. One rule for every way a reward enters (the rollout API over HTTP and in-process, the
 * store's own write) and for what the export reads back from older or hand-edited databases.
 *
 * @example
 * findRewardProblem({ value: 1, components: { correct: 1 } }); // null
 * findRewardProblem({ value: 1, components: { a: 1.7e308, b: 1.7e308 } }); // { field: 'components', problem: 'sum to Infinity, ...' }
 */
export function findRewardProblem(reward: { value: unknown; components?: unknown }): RewardProblem | null {
  if (!isRewardNumber(reward.value)) return { field: 'value', problem: `is ${String(reward.value)}, not ${WITHIN}` };
  if (reward.components === undefined || reward.components === null) return null;
  if (typeof reward.components !== 'object' || Array.isArray(reward.components))
    return { field: 'components', problem: 'is not an object of named numbers' };
  let sum = 0;
  for (const [name, part] of Object.entries(reward.components)) {
    if (!isRewardNumber(part)) return { field: `components.${name}`, problem: `is ${String(part)}, not ${WITHIN}` };
    sum += part;
  }
  if (!isRewardNumber(sum)) return { field: 'components', problem: `sum to ${sum}, not ${WITHIN}` };
  return null;
}

/** @example isRewardNumber(0.5) // true; isRewardNumber(1e31), isRewardNumber(NaN) // false */
export function isRewardNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_REWARD_MAGNITUDE;
}
