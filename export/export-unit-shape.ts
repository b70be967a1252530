import type { RolloutRow } from '../store/index.js';

/**
 * What an export hands a trainer together: a group's rollouts (sessions sharing a `groupId`), or one session in no
 * group (a group of one, keyed by its session id).
 */
export interface ExportUnit {
  /** the group id, or the session id of a session in no group */
  key: string;
  groupId: string | null;
  /** the unit's sessions in group order (creation time, then id) */
  rollouts: RolloutRow[];
}
