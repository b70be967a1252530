import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { VIEWER_PREFIX } from '../viewer-api.js';

/**
 * Where vite writes the pages (ui/app/vite.config.ts: index.html and assets/): the package's dist/ui/, one folder
 * above this module once compiled (dist/ui/server/serve-pages.js).
 */
export const DEFAULT_PAGES_DIR = fileURLToPath(new URL('../', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** vite names assets by their content's hash: a new build is a new name, so a cached one never goes stale. */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tokentap viewer: not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 4em auto">
<h1>The viewer's pages are not built</h1>
<p>This tokentap has no <code>dist/ui/index.html</code>. In a checkout, build the pages (<code>npm run build</code>);
a packaged tokentap ships them. The viewer's API still answers under <code>${VIEWER_PREFIX}/api/</code>
(<a href="${VIEWER_PREFIX}/api/openapi.json">openapi.json</a>).</p>
<p>TT_VIEWER_NOT_BUILT (docs/viewer.md)</p>
</body></html>
`;

/**
 * The built pages at /ui/ (index.html; /ui itself redirects there, so the pages' relative asset URLs resolve under
 * /ui/) and their files under /ui/..., from `pagesDir`, with their content types; hashed assets are cached for good,
 * index.html revalidated. Without index.html every page is a 503 page saying so. No data is in them, so no
 * authorization is asked (the API asks). /ui/api/... never reaches a file: an unknown API route is a JSON 404.
 *
 * @example registerPages(scope, { pagesDir: DEFAULT_PAGES_DIR })
 */
export function registerPages(app: FastifyInstance, options: { pagesDir: string; redirectRoot: boolean }): void {
  const root = resolve(options.pagesDir);
  app.get(VIEWER_PREFIX, { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${VIEWER_PREFIX}/`, 302));
  app.get(`${VIEWER_PREFIX}/`, { schema: { hide: true } }, async (_request, reply) => sendIndex(reply, root));
  app.get(`${VIEWER_PREFIX}/*`, { schema: { hide: true } }, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    if (rest === 'api' || rest.startsWith('api/'))
      throw new TokentapError('TT_NOT_FOUND', { message: `No viewer route ${request.method} ${request.url}` });
    if (rest === '' || rest === 'index.html') return sendIndex(reply, root);
    const path = resolve(root, rest);
    // nothing outside the pages' folder, and no compiled server code or source maps
    if (!path.startsWith(root + sep) || rest.startsWith('server/') || rest.includes('\0') || path.endsWith('.d.ts') || path.endsWith('.ts'))
      return notFound(reply);
    const file = await readPlainFile(path);
    if (file === null) return notFound(reply);
    const type = CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
    return reply
      .header('content-type', type)
      .header('cache-control', rest.startsWith('assets/') ? HASHED_ASSET_CACHE : 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .send(file);
  });
  if (options.redirectRoot) app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${VIEWER_PREFIX}/`, 302));
}

async function sendIndex(reply: FastifyReply, root: string): Promise<FastifyReply> {
  const index = await readPlainFile(join(root, 'index.html'));
  if (index === null) {
    return reply.code(503).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT_PAGE);
  }
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .send(index);
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
}

async function readPlainFile(path: string): Promise<Buffer | null> {
  try {
    if (!(await stat(path)).isFile()) return null;
    return await readFile(path);
  } catch {
    return null;
  }
}
