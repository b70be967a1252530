import type { RewardRow, Store } from '../store/index.js';
import type { KnownRollout } from './reconstruct-options.js';
import type { Sample } from './sample.js';

/** What a store adds to samples when it has the rollout API's tables (every Store does; fakes may not). */
export type RolloutFieldsSource = Partial<Pick<Store, 'getRollout' | 'listRewards'>>;

/**
 * Stamps the rollout API's data on a session's samples (docs/rollouts.md):
 * - `groupId`: the session's group;
 * - `reward`: the session's current reward, on every sample of the session (a rollout split into several samples
 *   shares one outcome; `lossWeight` already keeps it from counting several times), with `rewardComponents` when
 *   it was given as named parts;
 * - `callRewards`: the current reward of each of the sample's own calls that has one, in call order;
 * - `status`: a session that ended `truncated`, `failed` or `aborted` gives its samples that status; an open
 *   rollout session (made by the API) gives `in_progress`; otherwise the chain's own status stays.
 * The rollout row and rewards are read from `source` unless the caller hands them over (`known`).
 *
 * @example applyRolloutFields(report.samples, 'r-1', store)
 */
export function applyRolloutFields(samples: Sample[], sessionId: string, source: RolloutFieldsSource, known?: KnownRollout): void {
  const rollout = known === undefined ? (source.getRollout?.(sessionId) ?? null) : known.rollout;
  if (rollout === null || samples.length === 0) return;
  const rewards = known === undefined ? (source.listRewards?.(sessionId) ?? []) : known.rewards;
  const sessionReward = rewards.find((reward) => reward.callId === null);
  const byCall = new Map(rewards.filter((reward) => reward.callId !== null).map((reward) => [reward.callId as string, reward]));
  for (const sample of samples) {
    if (rollout.groupId !== null) sample.groupId = rollout.groupId;
    if (sessionReward !== undefined) {
      sample.reward = sessionReward.value;
      if (sessionReward.components !== null) sample.rewardComponents = sessionReward.components;
    }
    const callRewards = sample.callIds.flatMap((callId) => {
      const reward = byCall.get(callId);
      return reward === undefined ? [] : [toCallReward(reward)];
    });
    if (callRewards.length > 0) sample.callRewards = callRewards;
    if (rollout.status === 'truncated' || rollout.status === 'failed' || rollout.status === 'aborted') sample.status = rollout.status;
    else if (rollout.status === 'open' && rollout.origin === 'api') sample.status = 'in_progress';
  }
}

function toCallReward(reward: RewardRow): NonNullable<Sample['callRewards']>[number] {
  return { callId: reward.callId as string, value: reward.value, ...(reward.components === null ? {} : { components: reward.components }) };
}
