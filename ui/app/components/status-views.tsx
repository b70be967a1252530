/** Loading, error and empty states, the same on every page. */
import type { ComponentChildren } from 'preact';
import { ViewerApiError } from '../api/api-client.js';

/** An API error as a readable banner: its code and message (`{error:{code,message}}`). */
export function ErrorBanner({ error }: { error: Error }) {
  const code = error instanceof ViewerApiError ? error.code : 'error';
  const status = error instanceof ViewerApiError && error.status > 0 ? ` (HTTP ${error.status})` : '';
  return (
    <div class="tt-error" role="alert" data-testid="error-banner">
      <strong>
        {code}
        {status}
      </strong>
      : {error.message}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <div class="tt-loading" data-testid="loading" aria-busy="true">
      Loading {what}…
    </div>
  );
}

export function EmptyState({ children }: { children: ComponentChildren }) {
  return (
    <div class="tt-empty" data-testid="empty-state">
      {children}
    </div>
  );
}
