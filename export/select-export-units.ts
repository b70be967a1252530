import type { ExportUnitsFilter, RolloutRow, Store } from '../store/index.js';
import type { ExportFilters } from './export-options.js';
import { ROLLOUT_FILTER_REASONS } from './select-rollouts.js';
import type { ExportUnit } from './export-unit-shape.js';

export type { ExportUnit } from './export-unit-shape.js';

/** What unit selection reads from a store; `getRollouts`, where there, reads a page's rollouts in one statement. */
export type UnitSelectionSource = Pick<Store, 'listExportUnits' | 'countExportSessions' | 'getGroup' | 'getRollout'> &
  Partial<Pick<Store, 'getRollouts'>>;

export interface SelectExportUnitsOptions {
  filters?: ExportFilters;
  /** only these groups, in this order (the pull API) */
  groupIds?: readonly string[];
  /** units listed per store query (default DEFAULT_UNIT_PAGE) */
  pageSize?: number;
}

export interface ExportUnits {
  /** the sessions the units hold, before rollout-level filters (for a progress bar) */
  sessionsTotal: number;
  units: Iterable<ExportUnit>;
  /**
   * the sessions of the units the store skipped (no session of theirs matches), by the `dropped` reason of the
   * filter that left their unit without a match (ROLLOUT_FILTER_REASONS; filters applied one by one in that order)
   */
  skipped: Record<string, number>;
}

/** Units listed per store query: memory holds one page of ids and one unit's sessions, whatever the store holds. */
export const DEFAULT_UNIT_PAGE = 256;

/**
 * The units an export reads, oldest first (the order their first session was created), paged from the store by
 * keyset so no more than a page of unit ids is held at once. The store skips units none of whose sessions pass the
 * filters it can check; the export then filters each rollout itself. With `groupIds`, those groups in that order.
 *
 * @example
 * const { sessionsTotal, units } = selectExportUnits(store, { filters: { split: 'train' } });
 * for (const unit of units) console.log(unit.key, unit.rollouts.length);
 */
export function selectExportUnits(store: UnitSelectionSource, options: SelectExportUnitsOptions = {}): ExportUnits {
  if (options.groupIds !== undefined) return namedGroups(store, options.groupIds);
  const filter = storeFilter(options.filters ?? {});
  const pageSize = options.pageSize ?? DEFAULT_UNIT_PAGE;
  const { sessionsTotal, skipped } = countSkippedSessions(store, filter);
  return { sessionsTotal, units: pagedUnits(store, filter, pageSize), skipped };
}

/**
 * The store's filters one at a time, each count against the one before: what each filter skipped, so an export
 * that selects nothing can name the filter that emptied it (issue 14). One count per filter given, none without.
 */
function countSkippedSessions(store: UnitSelectionSource, filter: ExportUnitsFilter): { sessionsTotal: number; skipped: Record<string, number> } {
  const skipped: Record<string, number> = {};
  const keys = STORE_FILTER_KEYS.filter((key) => filter[key] !== undefined);
  let remaining = store.countExportSessions(keys.length === 0 ? filter : {});
  const partial: Record<string, unknown> = {};
  for (const key of keys) {
    partial[key] = filter[key];
    const count = store.countExportSessions(partial as ExportUnitsFilter);
    if (remaining > count) skipped[ROLLOUT_FILTER_REASONS[key]] = remaining - count;
    remaining = count;
  }
  return { sessionsTotal: remaining, skipped };
}

/** The filters the store checks, in the order rolloutFilterReason checks them. */
const STORE_FILTER_KEYS = ['since', 'until', 'tags', 'split', 'sessionIds', 'groupIds'] as const satisfies ReadonlyArray<keyof ExportUnitsFilter>;

function* pagedUnits(store: UnitSelectionSource, filter: ExportUnitsFilter, pageSize: number): Generator<ExportUnit> {
  let afterPosition = 0;
  for (;;) {
    const page = store.listExportUnits({ ...filter, limit: pageSize, afterPosition });
    const solo = rolloutsOf(
      store,
      page.flatMap((head) => (head.groupId === null ? [head.sessionId] : [])),
    );
    for (const head of page) {
      if (head.groupId !== null) {
        const unit = groupUnit(store, head.groupId);
        if (unit !== null) yield unit;
      } else {
        const rollout = solo.get(head.sessionId);
        if (rollout !== undefined) yield { key: rollout.id, groupId: null, rollouts: [rollout] };
      }
      afterPosition = head.position;
    }
    if (page.length < pageSize) return;
  }
}

function namedGroups(store: UnitSelectionSource, groupIds: readonly string[]): ExportUnits {
  // a pull batch names a few groups: reading their session lists twice is cheaper than holding every rollout
  const sessionsTotal = groupIds.reduce((total, groupId) => total + (store.getGroup(groupId)?.sessions.length ?? 0), 0);
  function* units(): Generator<ExportUnit> {
    for (const groupId of groupIds) {
      const unit = groupUnit(store, groupId);
      if (unit !== null) yield unit;
    }
  }
  return { sessionsTotal, units: units(), skipped: {} };
}

function groupUnit(store: UnitSelectionSource, groupId: string): ExportUnit | null {
  const group = store.getGroup(groupId);
  if (group === null) return null;
  const byId = rolloutsOf(
    store,
    group.sessions.map((session) => session.id),
  );
  const rollouts = group.sessions.flatMap((session) => byId.get(session.id) ?? []);
  return { key: groupId, groupId, rollouts };
}

/** The sessions' rollouts by id, in one statement where the store reads several at once. */
function rolloutsOf(store: UnitSelectionSource, sessionIds: readonly string[]): Map<string, RolloutRow> {
  if (sessionIds.length === 0) return new Map();
  const rollouts = store.getRollouts?.(sessionIds) ?? sessionIds.flatMap((sessionId) => store.getRollout(sessionId) ?? []);
  return new Map(rollouts.map((rollout) => [rollout.id, rollout]));
}

function storeFilter(filters: ExportFilters): ExportUnitsFilter {
  const filter: ExportUnitsFilter = {};
  if (filters.since !== undefined) filter.since = filters.since;
  if (filters.until !== undefined) filter.until = filters.until;
  if (filters.split !== undefined) filter.split = filters.split;
  if (filters.tags !== undefined) filter.tags = filters.tags;
  if (filters.sessionIds !== undefined) filter.sessionIds = filters.sessionIds;
  if (filters.groupIds !== undefined) filter.groupIds = filters.groupIds;
  return filter;
}
