/** The header of every page: the store's counts (ViewerSummary) and the nav. */
import type { ViewerSummary } from '../../viewer-api.js';
import { formatCount, formatCounts, formatTime } from '../logic/format.js';
import type { Route } from '../logic/route.js';

export function ViewerHeader({ summary, route }: { summary: ViewerSummary | null; route: Route }) {
  const section = route.page === 'groups' || route.page === 'group' ? 'groups' : route.page === 'overview' ? 'overview' : 'sessions';
  const link = (name: string, href: string, label: string) => (
    <a href={href} class={section === name ? 'tt-nav-current' : ''} aria-current={section === name ? 'page' : undefined} data-testid={`nav-${name}`}>
      {label}
    </a>
  );
  return (
    <header class="tt-header">
      <div class="tt-brand">
        <a href="#/">tokentap</a> <span class="tt-muted">viewer</span>
        {summary?.live ? (
          <span class="tt-live" title="a live gateway: pages update as it records">
            live
          </span>
        ) : null}
      </div>
      <nav class="tt-nav">
        {link('sessions', '#/', 'Sessions')}
        {link('groups', '#/groups', 'Groups')}
        {link('overview', '#/overview', 'Overview')}
      </nav>
      {summary === null ? null : (
        <dl class="tt-summary" data-testid="summary">
          <div>
            <dt>sessions</dt>
            <dd data-testid="summary-sessions">{formatCount(summary.sessions)}</dd>
          </div>
          <div>
            <dt>open</dt>
            <dd>{formatCount(summary.openSessions)}</dd>
          </div>
          <div>
            <dt>calls</dt>
            <dd data-testid="summary-calls">{formatCount(summary.calls)}</dd>
          </div>
          <div>
            <dt>groups</dt>
            <dd>{formatCount(summary.groups)}</dd>
          </div>
          <div title="calls per status">
            <dt>statuses</dt>
            <dd>{formatCounts(summary.callStatuses)}</dd>
          </div>
          <div>
            <dt>last call</dt>
            <dd>{formatTime(summary.lastCallAt)}</dd>
          </div>
          <div title={summary.store.where}>
            <dt>store</dt>
            <dd>{summary.store.engine}</dd>
          </div>
        </dl>
      )}
    </header>
  );
}
