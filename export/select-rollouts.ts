import { findRewardProblem, type RewardRow, type RolloutRow, type Store } from '../store/index.js';
import type { ExportFilters } from './export-options.js';
import { countReason } from './export-summary.js';
import type { ExportUnit } from './select-export-units.js';

/** A rollout the export takes, with its session reward (null when none was posted) and every current reward row. */
export interface SelectedRollout {
  rollout: RolloutRow;
  reward: number | null;
  /** the rollout's current rewards (session and calls), read once: reconstruction stamps them from here */
  rewards: RewardRow[];
}

/**
 * The rollouts of a unit that pass the rollout-level filters (docs/export.md, "Selection and filters"), in unit
 * order. Not matching a filter is not a drop: those rollouts were not asked for. A rollout the API opened and
 * nobody ended is not finished, so it is left out (counted `in_progress` in `dropped`, once per rollout) unless
 * `filters.status` asks for `in_progress`. A rollout with a stored reward (its own or one of its calls') outside the
 * reward rule of findRewardProblem (non-finite, or beyond ±MAX_REWARD_MAGNITUDE) is left out too, counted
 * `invalid_reward` once per rollout, before advantages, so the rest of its group keeps a finite baseline.
 *
 * @example
 * const rollouts = selectRollouts(store, unit, { tags: ['math'], rewardMin: 0 }, summary.dropped);
 */
export function selectRollouts(
  store: Pick<Store, 'listRewards'>,
  unit: ExportUnit,
  filters: ExportFilters,
  dropped: Record<string, number>,
): SelectedRollout[] {
  const selected: SelectedRollout[] = [];
  for (const rollout of unit.rollouts) {
    const rewards = store.listRewards(rollout.id);
    const reward = rewards.find((row) => row.callId === null)?.value ?? null;
    if (!isRolloutSelected(rollout, reward, filters)) continue;
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

/**
 * Whether one rollout passes every rollout-level filter: created in [since, until), carrying every tag, in the
 * split, among `sessionIds` / `groupIds`, reward within [rewardMin, rewardMax] (an unrewarded rollout fails
 * either bound).
 *
 * @example isRolloutSelected(store.getRollout('r-1')!, 1, { split: 'train', rewardMin: 0.5 }); // true for a train rollout
 */
export function isRolloutSelected(rollout: RolloutRow, reward: number | null, filters: ExportFilters): boolean {
  if (filters.since !== undefined && !(rollout.createdAt >= filters.since)) return false;
  if (filters.until !== undefined && !(rollout.createdAt < filters.until)) return false;
  if (filters.tags !== undefined && !filters.tags.every((tag) => rollout.tags.includes(tag))) return false;
  if (filters.split !== undefined && rollout.split !== filters.split) return false;
  if (filters.sessionIds !== undefined && !filters.sessionIds.includes(rollout.id)) return false;
  if (filters.groupIds !== undefined && (rollout.groupId === null || !filters.groupIds.includes(rollout.groupId))) return false;
  if (filters.rewardMin !== undefined && (reward === null || reward < filters.rewardMin)) return false;
  if (filters.rewardMax !== undefined && (reward === null || reward > filters.rewardMax)) return false;
  return true;
}

/** Opened by the rollout API and not ended yet; implicit sessions have no end and count as finished. */
function isUnfinished(rollout: RolloutRow): boolean {
  return rollout.status === 'open' && rollout.origin === 'api';
}
