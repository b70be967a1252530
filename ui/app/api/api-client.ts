/**
 * Every call the pages make to the viewer's API (ui/viewer-api.ts): GET JSON under VIEWER_API_PREFIX with the
 * admin token as `Authorization: Bearer`. A 401 asks the app for a token (the prompt), then the page retries.
 */
import { VIEWER_API_PREFIX, type ViewerError } from '../../viewer-api.js';
import { takeTokenFromLocation } from '../logic/auth-token.js';

const TOKEN_KEY = 'tokentap.viewer.token';

/** An answer of the API that is not a 2xx: its `{error:{code,message}}` when it sent one. */
export class ViewerApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ViewerApiError';
  }
}

type AuthListener = () => void;
const authListeners = new Set<AuthListener>();

/** Takes a token out of the address (once, at start) into sessionStorage. */
export function adoptTokenFromLocation(): void {
  const { token, hash, search } = takeTokenFromLocation(window.location.hash, window.location.search);
  if (token === null) return;
  setToken(token);
  window.history.replaceState(null, '', `${window.location.pathname}${search}${hash}`);
}

export function getToken(): string | null {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string): void {
  try {
    window.sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // storage refused (a private window): the token lives as long as the page
  }
  memoryToken = token;
}

let memoryToken: string | null = null;

/** Called when the API answers 401: the app shows its token prompt. */
export function onUnauthorized(listener: AuthListener): () => void {
  authListeners.add(listener);
  return () => authListeners.delete(listener);
}

export function authHeaders(): Record<string, string> {
  const token = getToken() ?? memoryToken;
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/** A path under the API prefix with a query, leaving out empty values. */
export function apiPath(path: string, query?: URLSearchParams): string {
  const search = query?.toString() ?? '';
  return `${VIEWER_API_PREFIX}${path}${search === '' ? '' : `?${search}`}`;
}

/** GET `path` (under the API prefix) as JSON. */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { accept: 'application/json', ...authHeaders() }, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ViewerApiError(0, 'network', `The viewer's server cannot be reached (${String(error)})`);
  }
  if (response.ok) return (await response.json()) as T;
  const body = (await response.json().catch(() => null)) as Partial<ViewerError> | null;
  if (response.status === 401) for (const listener of authListeners) listener();
  throw new ViewerApiError(
    response.status,
    body?.error?.code ?? `http_${response.status}`,
    body?.error?.message ?? `${response.status} ${response.statusText}`,
  );
}
