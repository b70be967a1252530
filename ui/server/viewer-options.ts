import type { FastifyRequest } from 'fastify';
import type { DriftTokenizer } from '../../reconstruct/reconstruct-options.js';
import type { Store } from '../../store/index.js';
import type { ViewerAnswer } from './viewer-worker-protocol.js';

/**
 * What the viewer decodes token ids with: a model-format HfTokenizer fits. `tokenBytes` (when there) gives each
 * token's own bytes, so a piece of a multi-byte character shows as its bytes (`\xe4`) instead of U+FFFD.
 */
export interface ViewerTokenizer extends DriftTokenizer {
  tokenBytes?(id: number): Uint8Array;
}

/** Tells the viewer that calls or sessions changed; returns how to stop listening. */
export type ViewerChangeSource = (listener: () => void) => () => void;

/**
 * Answers the viewer API's requests somewhere else (`serve --ui`: the viewer's thread, viewer-thread.ts): given the
 * request's method and its URL under VIEWER_API_PREFIX (path and query), the response to send.
 */
export interface ViewerRemote {
  answer(method: 'GET' | 'HEAD', url: string): Promise<ViewerAnswer>;
}

/**
 * registerViewer's options (docs/viewer.md).
 *
 * @example registerViewer(app, { store, storeLocation: './tokentap.db', live: false })
 */
export interface ViewerOptions {
  /** read only: the viewer never writes (open it with `readonly: true` where you can) */
  store: Store;
  /** the database file path or postgres:// URL, shown in the header (a URL's password is never shown) */
  storeLocation: string;
  /** decodes token ids to text; without it the pages show ids only. A promise is awaited while the app gets ready */
  tokenizer?: ViewerTokenizer | Promise<ViewerTokenizer | undefined>;
  /**
   * Checks each API request before it is answered (the static pages are never checked: they hold no data): throw a
   * TokentapError (TT_UNAUTHORIZED, TT_FORBIDDEN) to refuse it.
   */
  authorize?: (request: FastifyRequest) => void;
  /**
   * where the API's requests are answered instead of on this thread (each is still authorized here, and the event
   * stream stays here: its summaries come from there too); `store` is then read only for the change mark
   */
  remote?: ViewerRemote;
  /** true on a live gateway (`serve --ui`): the pages say so */
  live?: boolean;
  /** the gateway's own events; without it the store's counts are polled every `pollMs` while a page listens */
  changes?: ViewerChangeSource;
  /** default 1000 */
  pollMs?: number;
  /** the built pages (index.html, assets/); default the package's dist/ui/ */
  pagesDir?: string;
  /** also answer `/` with a redirect to the pages (`tokentap ui`; not on a gateway, whose `/` is not the viewer's) */
  redirectRoot?: boolean;
}
