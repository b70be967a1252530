import { describe, expect, it } from 'vitest';
import { takeTokenFromLocation } from '../../../ui/app/logic/auth-token.js';
import { parseRoute, routeHash } from '../../../ui/app/logic/route.js';
import { DEFAULT_SESSION_FILTERS, filtersFromQuery, filtersToQuery, toggleSort, updateFilters } from '../../../ui/app/logic/session-filters.js';

describe('parseRoute', () => {
  it('reads every page of the viewer', () => {
    expect(parseRoute('')).toMatchObject({ page: 'sessions' });
    expect(parseRoute('#/')).toMatchObject({ page: 'sessions' });
    expect(parseRoute('#/sessions/abc')).toEqual({ page: 'session', sessionId: 'abc' });
    expect(parseRoute('#/sessions/a%2Fb/samples/per-call/3')).toEqual({ page: 'sample', sessionId: 'a/b', strategy: 'per-call', index: 3 });
    expect(parseRoute('#/groups')).toEqual({ page: 'groups' });
    expect(parseRoute('#/groups/g%201')).toEqual({ page: 'group', groupId: 'g 1' });
    expect(parseRoute('#/overview')).toEqual({ page: 'overview' });
  });

  it('refuses unknown paths, strategies and indexes', () => {
    expect(parseRoute('#/nope').page).toBe('not-found');
    expect(parseRoute('#/sessions/a/samples/other/0').page).toBe('not-found');
    expect(parseRoute('#/sessions/a/samples/merge/-1').page).toBe('not-found');
    expect(parseRoute('#/sessions/%E0%A4%A').page).toBe('not-found');
  });

  it('keeps the sessions list filters in the hash query and writes routes back', () => {
    const route = parseRoute('#/?status=failed&drift=retokenized');
    expect(route.page === 'sessions' && route.query.get('status')).toBe('failed');
    expect(routeHash(route)).toBe('#/?status=failed&drift=retokenized');
    expect(routeHash({ page: 'sample', sessionId: 'a/b', strategy: 'merge', index: 0 })).toBe('#/sessions/a%2Fb/samples/merge/0');
  });

  it('reads and writes the token a sample page opens at', () => {
    expect(parseRoute('#/sessions/s/samples/merge/1?at=273')).toEqual({ page: 'sample', sessionId: 's', strategy: 'merge', index: 1, at: 273 });
    expect(parseRoute('#/sessions/s/samples/merge/1?at=-4')).toEqual({ page: 'sample', sessionId: 's', strategy: 'merge', index: 1 });
    expect(routeHash({ page: 'sample', sessionId: 's', strategy: 'per-call', index: 2, at: 5 })).toBe('#/sessions/s/samples/per-call/2?at=5');
  });
});

describe('session filters', () => {
  it('round-trips through a query, leaving defaults out', () => {
    const filters = {
      ...DEFAULT_SESSION_FILTERS,
      status: 'failed',
      drift: ['retokenized' as const, 'history-edited' as const],
      minReward: '0.5',
      offset: 100,
    };
    const query = filtersToQuery(filters);
    expect(query.toString()).toBe('status=failed&minReward=0.5&drift=retokenized%2Chistory-edited&offset=100');
    expect(filtersFromQuery(query)).toEqual(filters);
    expect(filtersToQuery(DEFAULT_SESSION_FILTERS).toString()).toBe('');
  });

  it('drops unknown drift kinds, sort keys and bad page sizes', () => {
    const filters = filtersFromQuery(new URLSearchParams('drift=bogus,retokenized&sort=nope&limit=9999&offset=-3'));
    expect(filters.drift).toEqual(['retokenized']);
    expect(filters.sort).toBe('lastCallAt');
    expect(filters.limit).toBe(50);
    expect(filters.offset).toBe(0);
  });

  it('flips the order on a second click of a column and goes back to the first page', () => {
    const page3 = { ...DEFAULT_SESSION_FILTERS, offset: 100 };
    expect(toggleSort(page3, 'lastCallAt')).toMatchObject({ sort: 'lastCallAt', order: 'asc', offset: 0 });
    expect(toggleSort(page3, 'reward')).toMatchObject({ sort: 'reward', order: 'desc', offset: 0 });
    expect(toggleSort(page3, 'id')).toMatchObject({ sort: 'id', order: 'asc' });
  });

  it('goes back to the first page when a filter changes, not when the page does', () => {
    const page3 = { ...DEFAULT_SESSION_FILTERS, offset: 100 };
    expect(updateFilters(page3, { status: 'ok' }).offset).toBe(0);
    expect(updateFilters(page3, { offset: 150 }).offset).toBe(150);
  });
});

describe('takeTokenFromLocation', () => {
  it('takes the token out of the fragment', () => {
    expect(takeTokenFromLocation('#token=abc', '')).toEqual({ token: 'abc', hash: '', search: '' });
    expect(takeTokenFromLocation('#/groups?token=abc&x=1', '')).toEqual({ token: 'abc', hash: '#/groups?x=1', search: '' });
  });

  it('takes the token out of the query', () => {
    expect(takeTokenFromLocation('#/overview', '?token=t%2B1')).toEqual({ token: 't+1', hash: '#/overview', search: '' });
  });

  it('leaves an address without a token as it is', () => {
    expect(takeTokenFromLocation('#/sessions/a?x=1', '?y=2')).toEqual({ token: null, hash: '#/sessions/a?x=1', search: '?y=2' });
  });
});
