/**
 * #/ — the sessions table: search and filters (kept in the hash's query, so a filtered list can be linked to),
 * sortable columns, the server's pages (limit/offset of `total`), refetched on every store change without
 * losing the filters or the scroll.
 */
import { useEffect, useState } from 'preact/hooks';
import type { SessionListResponse, SessionSortKey, ViewerSummary } from '../../viewer-api.js';
import { apiPath } from '../api/api-client.js';
import { useApi } from '../api/use-api.js';
import { EmptyState, ErrorBanner, Loading } from '../components/status-views.js';
import { SessionFiltersForm } from '../components/session-filters-form.js';
import { formatCount, formatCounts, formatScore, formatTime } from '../logic/format.js';
import { groupHref, sessionHref } from '../logic/route.js';
import { filtersFromQuery, filtersToQuery, toggleSort, updateFilters, type SessionFilters } from '../logic/session-filters.js';

const COLUMNS: Array<{ key: SessionSortKey | null; label: string; numeric?: boolean }> = [
  { key: 'id', label: 'session' },
  { key: null, label: 'status' },
  { key: null, label: 'group' },
  { key: 'reward', label: 'reward', numeric: true },
  { key: 'callCount', label: 'calls', numeric: true },
  { key: 'promptTokens', label: 'prompt tokens', numeric: true },
  { key: 'completionTokens', label: 'completion tokens', numeric: true },
  { key: null, label: 'samples', numeric: true },
  { key: null, label: 'drift' },
  { key: null, label: 'front door · model' },
  { key: 'createdAt', label: 'created' },
  { key: 'lastCallAt', label: 'last call' },
];

export function SessionsPage({ query, summary }: { query: URLSearchParams; summary: ViewerSummary | null }) {
  const [filters, setFilters] = useState<SessionFilters>(() => filtersFromQuery(query));
  // a followed link (the nav's, a group's) replaces the form's filters; `query` is new on each hashchange only, and
  // the form's own changes replace the hash without one
  useEffect(() => {
    if (filtersToQuery(filters).toString() !== query.toString()) setFilters(filtersFromQuery(query));
  }, [query]);

  const change = (next: SessionFilters): void => {
    setFilters(next);
    const search = filtersToQuery(next).toString();
    window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/${search === '' ? '' : `?${search}`}`);
  };

  const state = useApi<SessionListResponse>(apiPath('/sessions', filtersToQuery(filters)), { live: true });
  const list = state.data;
  return (
    <section class="tt-page" data-testid="sessions-page">
      <div class="tt-page-head">
        <h1>Sessions</h1>
        <p class="tt-counts" data-testid="sessions-total">
          {list === null ? '' : `${formatCount(list.total)} ${list.total === 1 ? 'session' : 'sessions'} match`}
          {summary === null ? '' : ` · ${formatCount(summary.sessions)} recorded, ${formatCount(summary.openSessions)} open`}
          {state.loading && list !== null ? ' · refreshing…' : ''}
        </p>
      </div>
      <SessionFiltersForm filters={filters} onChange={(change_) => change(updateFilters(filters, change_))} />
      {state.error ? <ErrorBanner error={state.error} /> : null}
      {list === null ? (
        state.loading ? (
          <Loading what="sessions" />
        ) : null
      ) : list.sessions.length === 0 ? (
        <EmptyState>
          {summary?.sessions === 0
            ? 'The store has no sessions yet: point a harness at the gateway and they appear here.'
            : 'No session matches these filters.'}
        </EmptyState>
      ) : (
        <>
          <div class="tt-table-wrap">
            <table class="tt-table" data-testid="sessions-table">
              <thead>
                <tr>
                  {COLUMNS.map((column) => (
                    <th
                      key={column.label}
                      class={column.numeric ? 'tt-num' : ''}
                      aria-sort={
                        column.key !== null && filters.sort === column.key ? (filters.order === 'asc' ? 'ascending' : 'descending') : undefined
                      }
                    >
                      {column.key === null ? (
                        column.label
                      ) : (
                        <button
                          type="button"
                          class="tt-sort"
                          data-sort={column.key}
                          onClick={() => change(toggleSort(filters, column.key as SessionSortKey))}
                        >
                          {column.label}
                          {filters.sort === column.key ? (filters.order === 'asc' ? ' ▲' : ' ▼') : ''}
                        </button>
                      )}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {list.sessions.map((session) => (
                  <tr key={session.id} data-testid="session-row" data-session-id={session.id}>
                    <td class="tt-id">
                      <a href={sessionHref(session.id)}>{session.id}</a>
                    </td>
                    <td>
                      <span class={`tt-status tt-status-${session.status}`}>{session.status}</span>
                    </td>
                    <td class="tt-id">{session.groupId === null ? '–' : <a href={groupHref(session.groupId)}>{session.groupId}</a>}</td>
                    <td class="tt-num">{formatScore(session.reward)}</td>
                    <td class="tt-num" title={formatCounts(session.callStatuses)}>
                      {formatCount(session.callCount)}
                    </td>
                    <td class="tt-num">{formatCount(session.promptTokens)}</td>
                    <td class="tt-num">{formatCount(session.completionTokens)}</td>
                    <td class="tt-num">{formatCount(session.samples)}</td>
                    <td>{Object.keys(session.drift).length === 0 ? '' : <span class="tt-drift">{formatCounts(session.drift)}</span>}</td>
                    <td class="tt-small">
                      {session.frontDoors.join(', ')}
                      {session.models.length > 0 ? ` · ${session.models.join(', ')}` : ''}
                    </td>
                    <td class="tt-small">{formatTime(session.createdAt)}</td>
                    <td class="tt-small">{formatTime(session.lastCallAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager total={list.total} offset={list.offset} limit={list.limit} onPage={(offset) => change(updateFilters(filters, { offset }))} />
        </>
      )}
    </section>
  );
}

function Pager({ total, offset, limit, onPage }: { total: number; offset: number; limit: number; onPage: (offset: number) => void }) {
  const last = Math.min(total, offset + limit);
  return (
    <div class="tt-pager" data-testid="pager">
      <button type="button" disabled={offset === 0} onClick={() => onPage(0)}>
        « first
      </button>
      <button type="button" disabled={offset === 0} onClick={() => onPage(Math.max(0, offset - limit))}>
        ‹ previous
      </button>
      <span>
        {formatCount(total === 0 ? 0 : offset + 1)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onPage(offset + limit)}>
        next ›
      </button>
    </div>
  );
}
