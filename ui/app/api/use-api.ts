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

export function useApi<T>(path: string | null, options: { live?: boolean } = {}): ApiState<T> {
  const refresh = useContext(RefreshContext);
  const [state, setState] = useState<ApiState<T>>({ data: null, error: null, loading: path !== null });
  const lastPath = useRef<string | null>(null);
  const liveTick = options.live ? refresh.changes : 0;

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
  }, [path, liveTick, refresh.auth]);

  return state;
}
