import type { SessionFilter, SessionRow, Store } from '../../store/index.js';
import type { SessionListItem, SessionListResponse } from '../viewer-api.js';
import type { SessionDriftCache, SessionDrift } from './session-drift.js';
import type { SessionListQuery } from './viewer-queries.js';

/** Sessions read per store page while a `drift` filter scans. */
const SCAN_PAGE = 500;

/**
 * GET /ui/api/sessions: the store filters, orders and pages (search, group, status, rewards, front door, model,
 * time); a `drift` filter is the viewer's own, over the merge reconstruction of every session the others take, so
 * then the store is read in pages of SCAN_PAGE and the viewer pages what passes (docs/viewer.md, "Costs").
 *
 * @example listSessionItems(store, drift, { sort: 'reward', order: 'desc', limit: 50, offset: 0 })
 */
export function listSessionItems(store: Store, driftCache: SessionDriftCache, query: SessionListQuery): SessionListResponse {
  const filter = storeFilter(query);
  const order = { orderBy: query.sort, order: query.order } as const;
  const kinds = query.drift;
  if (kinds === undefined) {
    const rows = store.listSessions({ ...filter, ...order, limit: query.limit, offset: query.offset });
    return { total: store.countSessions(filter), offset: query.offset, limit: query.limit, sessions: toListItems(store, driftCache, rows) };
  }
  const page: Array<{ row: SessionRow; drift: SessionDrift }> = [];
  let total = 0;
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const rows = store.listSessions({ ...filter, ...order, limit: SCAN_PAGE, offset });
    for (const row of rows) {
      const drift = driftCache.of(row);
      if (!kinds.some((kind) => (drift.drift[kind] ?? 0) > 0)) continue;
      if (total >= query.offset && page.length < query.limit) page.push({ row, drift });
      total += 1;
    }
    if (rows.length < SCAN_PAGE) break;
  }
  const callKinds = store.listSessionCallKinds(page.map(({ row }) => row.id));
  const sessions = page.map(({ row, drift }) => toListItem(row, drift, callKinds.get(row.id)));
  return { total, offset: query.offset, limit: query.limit, sessions };
}

/** List items for store rows: their drift (cached) and, in one query, their front doors and models. */
export function toListItems(store: Store, driftCache: SessionDriftCache, rows: readonly SessionRow[]): SessionListItem[] {
  const callKinds = store.listSessionCallKinds(rows.map((row) => row.id));
  return rows.map((row) => toListItem(row, driftCache.of(row), callKinds.get(row.id)));
}

export function toListItem(row: SessionRow, drift: SessionDrift, kinds: { frontDoors: string[]; models: string[] } | undefined): SessionListItem {
  return {
    id: row.id,
    createdAt: row.createdAt,
    lastCallAt: row.lastCallAt,
    callCount: row.callCount,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    callStatuses: row.statusCounts,
    status: row.status,
    groupId: row.groupId,
    reward: row.reward,
    frontDoors: kinds?.frontDoors ?? [],
    models: kinds?.models ?? [],
    drift: drift.drift,
    samples: drift.samples,
  };
}

function storeFilter(query: SessionListQuery): SessionFilter {
  const filter: SessionFilter = {};
  if (query.search !== undefined) filter.search = query.search;
  if (query.group !== undefined) filter.groupId = query.group;
  if (query.status !== undefined) filter.status = query.status;
  if (query.minReward !== undefined) filter.minReward = query.minReward;
  if (query.maxReward !== undefined) filter.maxReward = query.maxReward;
  if (query.frontDoor !== undefined) filter.frontDoor = query.frontDoor;
  if (query.model !== undefined) filter.model = query.model;
  if (query.since !== undefined) filter.since = query.since;
  if (query.until !== undefined) filter.until = query.until;
  return filter;
}
