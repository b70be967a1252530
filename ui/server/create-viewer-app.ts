import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { registerViewer } from './register-viewer.js';
import { setViewerNotFoundHandler } from './viewer-error-handler.js';
import type { ViewerOptions } from './viewer-options.js';

/** createViewerApp's options: the viewer's, and fastify's logger. */
export interface ViewerAppOptions extends ViewerOptions {
  /** fastify's `logger` option (default off) */
  logger?: FastifyServerOptions['logger'];
}

/**
 * A fastify app that is only the viewer (`tokentap ui`): its pages at /ui/ (and `/` redirecting there), its API
 * under /ui/api. Built, never listening: call `listen()` (the CLI does) or `inject()` (tests). Closing the app does
 * not close the store.
 *
 * @example
 * const app = createViewerApp({ store: openStore({ path: 'tokentap.db', readonly: true }), storeLocation: 'tokentap.db' });
 * await app.listen({ port: 4100, host: '127.0.0.1' });
 */
export function createViewerApp(options: ViewerAppOptions): FastifyInstance {
  const { logger, ...viewer } = options;
  const app = Fastify({ logger: logger ?? false, forceCloseConnections: 'idle' });
  setViewerNotFoundHandler(app);
  registerViewer(app, { redirectRoot: true, ...viewer });
  return app;
}
