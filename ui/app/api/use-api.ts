/**
 * `useApi(path)`: a page's data from the API, refetched when the path changes, when the store changes (live, if
 * asked) and after a new token was given. While it refetches the old data stays on screen, so a live refresh
 * keeps the page and its scroll as they were.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from './api-client.js';

export interface ApiState<T> {
  data: T | null;
  error: Error | null;
  loading: boolean;
}

/** Bumped by the app: `changes` on each store change (debounced), `auth` after a token was entered. */
export const RefreshContext = createContext({ changes: 0, auth: 0 });

export interface UseApiOptions {
  /** refetch on each store change */
  live?: boolean;
  /** refetch when this changes (a page's own refresh button) */
  reload?: number;
}

export function useApi<T>(path: string | null, options: UseApiOptions = {}): ApiState<T> {
  const refresh = useContext(RefreshContext);
  const [state, setState] = useState<ApiState<T>>({ data: null, error: null, loading: path !== null });
  const lastPath = useRef<string | null>(null);
  // the store changes this data has followed: frozen while not live, so turning live off refetches nothing
  const liveTick = useRef(refresh.changes);
  if (options.live) liveTick.current = refresh.changes;

  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    const samePath = lastPath.current === path;
    lastPath.current = path;
    setState((previous) => ({ data: samePath ? previous.data : null, error: null, loading: true }));
    getJson<T>(path, controller.signal).then(
      (data) => setState({ data, error: null, loading: false }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setState((previous) => ({
          data: samePath ? previous.data : null,
          error: error instanceof Error ? error : new Error(String(error)),
          loading: false,
        }));
      },
    );
    return () => controller.abort();
  }, [path, liveTick.current, refresh.auth, options.reload ?? 0]);

  return state;
}
