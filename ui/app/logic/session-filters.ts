/**
 * The sessions list's filters, sort and page, both ways between a query string (the page's hash, and the query of
 * GET /ui/api/sessions, which take the same names) and the form.
 */
import type { DriftKindName, SessionSortKey } from '../../viewer-api.js';

export interface SessionFilters {
  search: string;
  group: string;
  status: string;
  minReward: string;
  maxReward: string;
  drift: DriftKindName[];
  frontDoor: string;
  model: string;
  /** ms since the epoch, or '' */
  since: string;
  until: string;
  sort: SessionSortKey;
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export const DRIFT_KINDS: readonly DriftKindName[] = [
  'template-rerender',
  'retokenized',
  'history-edited',
  'parallel-branch',
  'truncated-completion',
];
export const SESSION_SORT_KEYS: readonly SessionSortKey[] = [
  'lastCallAt',
  'createdAt',
  'callCount',
  'promptTokens',
  'completionTokens',
  'reward',
  'id',
];
export const DEFAULT_PAGE_SIZE = 50;

export const DEFAULT_SESSION_FILTERS: SessionFilters = {
  search: '',
  group: '',
  status: '',
  minReward: '',
  maxReward: '',
  drift: [],
  frontDoor: '',
  model: '',
  since: '',
  until: '',
  sort: 'lastCallAt',
  order: 'desc',
  limit: DEFAULT_PAGE_SIZE,
  offset: 0,
};

const TEXT_KEYS = ['search', 'group', 'status', 'minReward', 'maxReward', 'frontDoor', 'model', 'since', 'until'] as const;

/** Filters from a query; unknown or malformed values fall back to the defaults. */
export function filtersFromQuery(query: URLSearchParams): SessionFilters {
  const filters: SessionFilters = { ...DEFAULT_SESSION_FILTERS, drift: [] };
  for (const key of TEXT_KEYS) filters[key] = query.get(key)?.trim() ?? '';
  const drift = query.get('drift');
  if (drift) filters.drift = drift.split(',').filter((kind): kind is DriftKindName => (DRIFT_KINDS as readonly string[]).includes(kind));
  const sort = query.get('sort');
  if (sort && (SESSION_SORT_KEYS as readonly string[]).includes(sort)) filters.sort = sort as SessionSortKey;
  const order = query.get('order');
  if (order === 'asc' || order === 'desc') filters.order = order;
  const limit = Number(query.get('limit'));
  if (Number.isInteger(limit) && limit >= 1 && limit <= 500) filters.limit = limit;
  const offset = Number(query.get('offset'));
  if (Number.isInteger(offset) && offset >= 0) filters.offset = offset;
  return filters;
}

/** The query of the filters, leaving out what equals the default (so the plain list is `#/`). */
export function filtersToQuery(filters: SessionFilters): URLSearchParams {
  const query = new URLSearchParams();
  for (const key of TEXT_KEYS) if (filters[key].trim() !== '') query.set(key, filters[key].trim());
  if (filters.drift.length > 0) query.set('drift', filters.drift.join(','));
  if (filters.sort !== DEFAULT_SESSION_FILTERS.sort) query.set('sort', filters.sort);
  if (filters.order !== DEFAULT_SESSION_FILTERS.order) query.set('order', filters.order);
  if (filters.limit !== DEFAULT_SESSION_FILTERS.limit) query.set('limit', String(filters.limit));
  if (filters.offset !== 0) query.set('offset', String(filters.offset));
  return query;
}

/**
 * The filters after a click on a column header: the same column flips its order, a new one sorts descending
 * (ids ascending); either way back to the first page.
 */
export function toggleSort(filters: SessionFilters, key: SessionSortKey): SessionFilters {
  const order = filters.sort === key ? (filters.order === 'desc' ? 'asc' : 'desc') : key === 'id' ? 'asc' : 'desc';
  return { ...filters, sort: key, order, offset: 0 };
}

/** The filters with some changed; a change of anything but the page goes back to the first page. */
export function updateFilters(filters: SessionFilters, change: Partial<SessionFilters>): SessionFilters {
  const keepsPage = Object.keys(change).every((key) => key === 'offset');
  return { ...filters, ...change, offset: keepsPage ? (change.offset ?? filters.offset) : 0 };
}
