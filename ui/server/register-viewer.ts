import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { VIEWER_API_PREFIX, type ViewerSummary } from '../viewer-api.js';
import { ChangeEvents } from './change-events.js';
import { DEFAULT_PAGES_DIR, registerPages } from './serve-pages.js';
import { SessionDriftCache } from './session-drift.js';
import { TokenTexts } from './token-texts.js';
import { setViewerErrorHandler } from './viewer-error-handler.js';
import type { ViewerOptions, ViewerRemote } from './viewer-options.js';
import { registerViewerRoutes } from './viewer-routes.js';
import { readViewerSummary } from './viewer-summary.js';

/** What the viewer's own OpenAPI document says of itself. */
const VIEWER_OPENAPI_INFO = {
  title: 'tokentap trajectory viewer API',
  version: '1',
  description: 'Read-only views of the recorded sessions, calls, samples and groups (ui/viewer-api.ts). Errors: {"error":{"code","message"}}.',
};

/**
 * The trajectory viewer (docs/viewer.md) on a fastify app: every route of ui/viewer-api.ts (GET only) under
 * VIEWER_API_PREFIX, its OpenAPI document at `${VIEWER_API_PREFIX}/openapi.json`, and the built pages at /ui/. It
 * only reads the store. On an app that already documents itself with @fastify/swagger (the gateway's rollout API),
 * the viewer's routes go into that document and the viewer's own is its part of it.
 *
 * @example
 * registerViewer(app, { store: openStore({ path: 'tokentap.db', readonly: true }), storeLocation: 'tokentap.db' });
 * await app.ready();
 */
export function registerViewer(app: FastifyInstance, options: ViewerOptions): void {
  const { store } = options;
  const live = options.live === true;
  let events: ChangeEvents | null = null;
  // before the server stops: open event streams would hold its close forever
  app.addHook('preClose', async () => events?.close());
  void app.register(async (viewer) => {
    const tokenizer = await options.tokenizer;
    const remote = options.remote ?? null;
    const readSummary = (): ViewerSummary =>
      readViewerSummary(store, { storeLocation: options.storeLocation, tokenText: tokenizer !== undefined, live });
    events = new ChangeEvents(remote === null ? readSummary : () => remoteSummary(remote), {
      changes: options.changes,
      readMark: () => JSON.stringify(store.readChangeMark()),
      pollMs: options.pollMs,
      log: app.log,
    });
    const context = {
      store,
      tokenizer,
      driftCache: new SessionDriftCache(store, tokenizer),
      texts: tokenizer === undefined ? null : new TokenTexts(tokenizer),
      readSummary,
      remote,
      authorize: options.authorize ?? (() => undefined),
      events,
    };
    setViewerErrorHandler(viewer);
    // zod validates in the handlers; route schemas only document
    viewer.setValidatorCompiler(() => () => true);
    viewer.setSerializerCompiler(() => (data) => JSON.stringify(data));
    if (!viewer.hasDecorator('swagger')) {
      await viewer.register(fastifySwagger, {
        openapi: {
          openapi: '3.0.3',
          info: VIEWER_OPENAPI_INFO,
          components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: "the gateway's admin token (serve --ui)" } } },
        },
        transform: ({ schema, url }) => ({ schema: url.startsWith(VIEWER_API_PREFIX) ? schema : { ...schema, hide: true }, url }),
      });
    }
    void viewer.register(async (api) => registerViewerRoutes(api, context), { prefix: VIEWER_API_PREFIX });
    viewer.get(`${VIEWER_API_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => viewerDocument(viewer.swagger() as OpenApiDocument));
    registerPages(viewer, { pagesDir: options.pagesDir ?? DEFAULT_PAGES_DIR, redirectRoot: options.redirectRoot === true });
  });
}

/** The summary as the viewer's thread reads it; a refusal (the store away: 503) is the error the events log. */
async function remoteSummary(remote: ViewerRemote): Promise<ViewerSummary> {
  const answer = await remote.answer('GET', `${VIEWER_API_PREFIX}/summary`);
  if (answer.statusCode !== 200) throw new Error(`the viewer's thread answered the summary with ${answer.statusCode}: ${answer.body}`);
  return JSON.parse(answer.body) as ViewerSummary;
}

interface OpenApiDocument {
  paths?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The viewer's part of the app's document: its paths only, under its own title. */
function viewerDocument(document: OpenApiDocument): OpenApiDocument {
  const paths = Object.fromEntries(Object.entries(document.paths ?? {}).filter(([path]) => path.startsWith(VIEWER_API_PREFIX)));
  return { ...document, info: VIEWER_OPENAPI_INFO, paths };
}
