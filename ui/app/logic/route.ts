/** The pages' hash routes: `#/`, `#/sessions/:id`, `#/sessions/:id/samples/:strategy/:index`, `#/groups`, `#/groups/:id`, `#/overview`. */
import type { StrategyName } from '../../viewer-api.js';

export type Route =
  | { page: 'sessions'; query: URLSearchParams }
  | { page: 'session'; sessionId: string }
  /** `at`: a token to jump to on opening (`?at=273`) */
  | { page: 'sample'; sessionId: string; strategy: StrategyName; index: number; at?: number }
  | { page: 'groups' }
  | { page: 'group'; groupId: string }
  | { page: 'overview' }
  | { page: 'not-found'; path: string };

/**
 * The route of a location hash (`#/sessions/abc`); ids are URI-decoded, and the sessions list keeps its filters in
 * the hash's query (`#/?status=failed`), so a filtered list can be linked to.
 *
 * @example
 * parseRoute('#/sessions/s%2F1/samples/merge/0'); // { page: 'sample', sessionId: 's/1', strategy: 'merge', index: 0 }
 */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, '');
  const queryAt = raw.indexOf('?');
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : raw.slice(queryAt + 1));
  const parts = path.split('/').filter((part) => part !== '');
  let segments: string[];
  try {
    segments = parts.map((part) => decodeURIComponent(part));
  } catch {
    return { page: 'not-found', path };
  }
  const [first, second, third, fourth, fifth] = segments;
  if (segments.length === 0 || (first === 'sessions' && segments.length === 1)) return { page: 'sessions', query };
  if (first === 'sessions' && second !== undefined && segments.length === 2) return { page: 'session', sessionId: second };
  if (first === 'sessions' && second !== undefined && third === 'samples' && segments.length === 5) {
    const index = Number(fifth);
    const at = Number(query.get('at') ?? NaN);
    if ((fourth === 'merge' || fourth === 'per-call') && Number.isInteger(index) && index >= 0)
      return { page: 'sample', sessionId: second, strategy: fourth, index, ...(Number.isInteger(at) && at >= 0 ? { at } : {}) };
  }
  if (first === 'groups' && segments.length === 1) return { page: 'groups' };
  if (first === 'groups' && second !== undefined && segments.length === 2) return { page: 'group', groupId: second };
  if (first === 'overview' && segments.length === 1) return { page: 'overview' };
  return { page: 'not-found', path };
}

/** The hash of a route, the inverse of parseRoute. */
export function routeHash(route: Route): string {
  switch (route.page) {
    case 'sessions': {
      const query = route.query.toString();
      return query === '' ? '#/' : `#/?${query}`;
    }
    case 'session':
      return `#/sessions/${encodeURIComponent(route.sessionId)}`;
    case 'sample':
      return `#/sessions/${encodeURIComponent(route.sessionId)}/samples/${route.strategy}/${route.index}${route.at === undefined ? '' : `?at=${route.at}`}`;
    case 'groups':
      return '#/groups';
    case 'group':
      return `#/groups/${encodeURIComponent(route.groupId)}`;
    case 'overview':
      return '#/overview';
    case 'not-found':
      return `#/${route.path.replace(/^\//, '')}`;
  }
}

export const sessionHref = (sessionId: string): string => routeHash({ page: 'session', sessionId });
export const sampleHref = (sessionId: string, strategy: StrategyName, index: number, at?: number): string =>
  routeHash({ page: 'sample', sessionId, strategy, index, ...(at === undefined ? {} : { at }) });
export const groupHref = (groupId: string): string => routeHash({ page: 'group', groupId });
