import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { openStore, type Store } from '../../store/index.js';
import { createViewerApp } from '../../ui/server/index.js';
import { VIEWER_PREFIX } from '../../ui/viewer-api.js';

/** The built pages (`npm run build` runs vite into dist/ui/): the tests run the sources, so they name the folder. */
export const BUILT_PAGES_DIR = join(import.meta.dirname, '../../dist/ui');

export interface StartedViewer {
  /** the server's base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** the pages: `${url}/ui/` */
  pagesUrl: string;
  /** the store the viewer reads, open read-only */
  store: Store;
  close(): Promise<void>;
}

/**
 * `tokentap ui` in the test's process: the viewer's app (createViewerApp) over a recorded database opened read-only,
 * decoding tokens with the bundled Qwen3 tokenizer, on 127.0.0.1 port 0, serving the built pages. Fails naming the
 * fix when the pages are not built.
 *
 * @example
 * const viewer = await startViewer(fixture.dbPath);
 * await page.goto(`${viewer.pagesUrl}#/sessions/coding-agent`);
 */
export async function startViewer(dbPath: string): Promise<StartedViewer> {
  if (!existsSync(join(BUILT_PAGES_DIR, 'index.html'))) throw new Error(`the viewer's pages are not built (${BUILT_PAGES_DIR}): run npm run build`);
  const store = openStore({ path: dbPath, readonly: true });
  const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
  const app = createViewerApp({ store, storeLocation: dbPath, tokenizer, pagesDir: BUILT_PAGES_DIR });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    pagesUrl: `${url}${VIEWER_PREFIX}/`,
    store,
    async close() {
      await app.close();
      store.close();
    },
  };
}
