import { findRewardProblem, type RewardRow, type RolloutRow, type Store } from '../store/index.js';
import type { ExportFilters, RewardOverride } from './export-options.js';
import { countReason } from './export-summary.js';
import type { ExportUnit } from './export-unit-shape.js';

/** A rollout the export takes, with its session reward (null when none was posted) and every current reward row. */
export interface SelectedRollout {
  rollout: RolloutRow;
  reward: number | null;
  /** the rollout's current rewards (session and calls), read once: reconstruction stamps them from here */
  rewards: RewardRow[];
}

/**
 * The rollouts of a unit that pass the rollout-level filters (docs/export.md, "Selection and filters"), in unit
 * order. A rollout a filter leaves out is counted in `dropped` under the first filter it fails (rolloutFilterReason:
 * `filter_split`, `filter_reward_min`, ...), so an export that selects nothing says which filter did it. A rollout
 * the API opened and nobody ended is not finished, so it is left out (counted `in_progress` in `dropped`, once per
 * rollout) unless `filters.status` asks for `in_progress`. A rollout with a stored reward (its own or one of its
 * calls') outside the reward rule of findRewardProblem (non-finite, or beyond ±MAX_REWARD_MAGNITUDE) is left out
 * too, counted `invalid_reward` once per rollout, before advantages, so the rest of its group keeps a finite
 * baseline. A session in `rewardOverrides` is read with that session reward instead of its stored one.
 *
 * @example
 * const rollouts = selectRollouts(store, unit, { tags: ['math'], rewardMin: 0 }, summary.dropped);
 */
export function selectRollouts(
  store: Pick<Store, 'listRewards'>,
  unit: ExportUnit,
  filters: ExportFilters,
  dropped: Record<string, number>,
  rewardOverrides?: ReadonlyMap<string, RewardOverride>,
): SelectedRollout[] {
  const selected: SelectedRollout[] = [];
  for (const rollout of unit.rollouts) {
    const rewards = withOverride(store.listRewards(rollout.id), rewardOverrides?.get(rollout.id), rollout.id);
    const reward = rewards.find((row) => row.callId === null)?.value ?? null;
    const filtered = rolloutFilterReason(rollout, reward, filters);
    if (filtered !== null) {
      countReason(dropped, filtered);
      continue;
    }
    if (isUnfinished(rollout) && filters.status?.includes('in_progress') !== true) {
      countReason(dropped, 'in_progress');
      continue;
    }
    // a reward the rollout API refuses today (Infinity, 1e308) may sit in an older or hand-edited database: it would
    // poison the group's advantages and stop the writers, so the rollout is left out and the rest exports (issue 12)
    if (rewards.some((row) => findRewardProblem(row) !== null)) {
      countReason(dropped, 'invalid_reward');
      continue;
    }
    selected.push({ rollout, reward, rewards });
  }
  return selected;
}

/** The stored rewards with the session's own replaced by the override (first, as the store lists it), when one is given. */
function withOverride(rewards: RewardRow[], override: RewardOverride | undefined, sessionId: string): RewardRow[] {
  if (override === undefined) return rewards;
  // id 0 and source `rewards-file`: no stored row has them; the override is never written
  const row: RewardRow = {
    id: 0,
    sessionId,
    callId: null,
    value: override.value,
    components: override.components,
    source: 'rewards-file',
    createdAt: 0,
  };
  return [row, ...rewards.filter((reward) => reward.callId !== null)];
}

/** The `dropped` reason of each rollout-level filter, in the order they are checked. */
export const ROLLOUT_FILTER_REASONS = {
  since: 'filter_since',
  until: 'filter_until',
  tags: 'filter_tags',
  split: 'filter_split',
  sessionIds: 'filter_sessions',
  groupIds: 'filter_groups',
  rewardMin: 'filter_reward_min',
  rewardMax: 'filter_reward_max',
} as const satisfies Partial<Record<keyof ExportFilters, string>>;

/**
 * The first rollout-level filter a rollout fails, as its `dropped` reason (ROLLOUT_FILTER_REASONS), or null when
 * it passes them all: created in [since, until), carrying every tag, in the split, among `sessionIds` / `groupIds`,
 * reward within [rewardMin, rewardMax] (an unrewarded rollout fails either bound).
 *
 * @example rolloutFilterReason(store.getRollout('r-1')!, 1, { split: 'val' }); // 'filter_split' for a train rollout
 */
export function rolloutFilterReason(rollout: RolloutRow, reward: number | null, filters: ExportFilters): string | null {
  const reasons = ROLLOUT_FILTER_REASONS;
  if (filters.since !== undefined && !(rollout.createdAt >= filters.since)) return reasons.since;
  if (filters.until !== undefined && !(rollout.createdAt < filters.until)) return reasons.until;
  if (filters.tags !== undefined && !filters.tags.every((tag) => rollout.tags.includes(tag))) return reasons.tags;
  if (filters.split !== undefined && rollout.split !== filters.split) return reasons.split;
  if (filters.sessionIds !== undefined && !filters.sessionIds.includes(rollout.id)) return reasons.sessionIds;
  if (filters.groupIds !== undefined && (rollout.groupId === null || !filters.groupIds.includes(rollout.groupId))) return reasons.groupIds;
  if (filters.rewardMin !== undefined && (reward === null || reward < filters.rewardMin)) return reasons.rewardMin;
  if (filters.rewardMax !== undefined && (reward === null || reward > filters.rewardMax)) return reasons.rewardMax;
  return null;
}

/**
 * Whether one rollout passes every rollout-level filter (rolloutFilterReason finds none it fails).
 *
 * @example isRolloutSelected(store.getRollout('r-1')!, 1, { split: 'train', rewardMin: 0.5 }); // true for a train rollout
 */
export function isRolloutSelected(rollout: RolloutRow, reward: number | null, filters: ExportFilters): boolean {
  return rolloutFilterReason(rollout, reward, filters) === null;
}

/** Opened by the rollout API and not ended yet; implicit sessions have no end and count as finished. */
function isUnfinished(rollout: RolloutRow): boolean {
  return rollout.status === 'open' && rollout.origin === 'api';
}
