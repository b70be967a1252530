/**
 * The trajectory viewer's pages (issue 18): one Preact app with hash routes, bundled by vite into dist/ui and
 * served at /ui/ by `tokentap ui` and `tokentap serve --ui`. It talks to the server only through ui/viewer-api.ts.
 */
import { render } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ViewerSummary } from '../viewer-api.js';
import { adoptTokenFromLocation, apiPath, getJson, onUnauthorized, setToken } from './api/api-client.js';
import { subscribeToChanges } from './api/event-stream.js';
import { RefreshContext } from './api/use-api.js';
import { TokenPrompt } from './components/token-prompt.js';
import { ViewerHeader } from './components/viewer-header.js';
import { parseRoute, type Route } from './logic/route.js';
import { GroupPage } from './pages/group-page.js';
import { GroupsPage } from './pages/groups-page.js';
import { OverviewPage } from './pages/overview-page.js';
import { SamplePage } from './pages/sample-page.js';
import { SessionPage } from './pages/session-page.js';
import { SessionsPage } from './pages/sessions-page.js';
import './styles.css';

/** Store changes arrive in bursts while a gateway records; the pages refetch at most this often. */
const CHANGE_DEBOUNCE_MS = 500;

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

function App() {
  const route = useRoute();
  const [summary, setSummary] = useState<ViewerSummary | null>(null);
  const [refresh, setRefresh] = useState({ changes: 0, auth: 0 });
  const [needsToken, setNeedsToken] = useState(false);
  const debounce = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => onUnauthorized(() => setNeedsToken(true)), []);
  useEffect(() => {
    getJson<ViewerSummary>(apiPath('/summary')).then(setSummary, () => undefined);
    return subscribeToChanges((next) => {
      setSummary(next);
      clearTimeout(debounce.current);
      debounce.current = setTimeout(() => setRefresh((previous) => ({ ...previous, changes: previous.changes + 1 })), CHANGE_DEBOUNCE_MS);
    });
  }, [refresh.auth]);

  const giveToken = useCallback((token: string) => {
    setToken(token);
    setNeedsToken(false);
    setRefresh((previous) => ({ ...previous, auth: previous.auth + 1 }));
  }, []);

  return (
    <RefreshContext.Provider value={refresh}>
      <ViewerHeader summary={summary} route={route} />
      {needsToken ? <TokenPrompt onSubmit={giveToken} /> : null}
      <main class="tt-main" data-testid={`page-${route.page}`}>
        <Page route={route} summary={summary} />
      </main>
    </RefreshContext.Provider>
  );
}

function Page({ route, summary }: { route: Route; summary: ViewerSummary | null }) {
  switch (route.page) {
    case 'sessions':
      return <SessionsPage query={route.query} summary={summary} />;
    case 'session':
      return <SessionPage key={route.sessionId} sessionId={route.sessionId} />;
    case 'sample':
      return (
        <SamplePage
          key={`${route.sessionId}/${route.strategy}/${route.index}`}
          sessionId={route.sessionId}
          strategy={route.strategy}
          index={route.index}
          at={route.at ?? null}
        />
      );
    case 'groups':
      return <GroupsPage />;
    case 'group':
      return <GroupPage key={route.groupId} groupId={route.groupId} />;
    case 'overview':
      return <OverviewPage />;
    case 'not-found':
      return (
        <p class="tt-empty">
          No page at <code>#{route.path}</code>. <a href="#/">Sessions</a>
        </p>
      );
  }
}

adoptTokenFromLocation();
render(<App />, document.getElementById('app') as HTMLElement);
