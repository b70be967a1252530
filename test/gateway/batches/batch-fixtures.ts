import type { Store } from '../../../store/index.js';

export interface GroupFixture {
  size?: number;
  /** when its last session ends (the group's completedAt) */
  completedAt: number;
  createdAt?: number;
  split?: 'train' | 'val' | 'test';
  tags?: string[];
  /** leave the last session open: the group stays incomplete */
  incomplete?: boolean;
}

/** Declares a group of `size` rollouts straight in the store and ends them (all but one when `incomplete`). */
export function addGroup(store: Store, groupId: string, fixture: GroupFixture): string[] {
  const size = fixture.size ?? 2;
  const createdAt = fixture.createdAt ?? fixture.completedAt - 1000;
  store.declareGroup({ groupId, expectedSize: size, createdAt });
  const sessionIds = Array.from({ length: size }, (_, index) => `${groupId}-r${index}`);
  for (const sessionId of sessionIds) {
    store.createRollout({
      sessionId,
      groupId,
      createdAt,
      ...(fixture.split === undefined ? {} : { split: fixture.split }),
      ...(fixture.tags === undefined ? {} : { tags: fixture.tags }),
    });
  }
  const ending = fixture.incomplete === true ? sessionIds.slice(0, -1) : sessionIds;
  for (const sessionId of ending) store.endSession(sessionId, { status: 'completed', reason: 'explicit', endedAt: fixture.completedAt });
  return sessionIds;
}
