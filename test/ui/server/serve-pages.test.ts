import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../../store/index.js';
import { createViewerApp } from '../../../ui/server/index.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe("the viewer's pages", () => {
  let temp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeAll(() => {
    temp = makeTempDir('tokentap-viewer-pages-');
    mkdirSync(temp.file('built/assets'), { recursive: true });
    mkdirSync(temp.file('built/server'), { recursive: true });
    writeFileSync(temp.file('built/index.html'), '<!doctype html><script type="module" src="./assets/index-AbC123.js"></script>');
    writeFileSync(temp.file('built/assets/index-AbC123.js'), 'console.log(1)');
    writeFileSync(temp.file('built/assets/index-AbC123.css'), 'body{}');
    writeFileSync(temp.file('built/server/register-viewer.js'), 'export {}');
    writeFileSync(temp.file('secret.txt'), 'not a page');
    store = openStore({ path: ':memory:' });
  });
  afterAll(() => {
    store.close();
    temp.remove();
  });

  it('serves index.html at /ui/ and the assets with their types, hashed assets cached for good; /ui and / lead there', async () => {
    const app = createViewerApp({ store, storeLocation: ':memory:', pagesDir: temp.file('built') });
    try {
      const index = await app.inject({ url: '/ui/' });
      expect(index.statusCode).toBe(200);
      expect(index.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
      expect(index.body).toContain('index-AbC123.js');
      expect((await app.inject({ url: '/ui/index.html' })).body).toBe(index.body);
      for (const [path, type] of [
        ['/ui/assets/index-AbC123.js', 'text/javascript; charset=utf-8'],
        ['/ui/assets/index-AbC123.css', 'text/css; charset=utf-8'],
      ] as const) {
        const asset = await app.inject({ url: path });
        expect(asset.statusCode, path).toBe(200);
        expect(asset.headers).toMatchObject({ 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' });
      }
      for (const path of ['/ui', '/']) {
        const redirect = await app.inject({ url: path });
        expect(redirect.statusCode, path).toBe(302);
        expect(redirect.headers.location).toBe('/ui/');
      }
      // nothing outside the folder, nor the compiled server beside the pages
      for (const path of [
        '/ui/../secret.txt',
        '/ui/%2e%2e/secret.txt',
        '/ui/assets/..%2f..%2fsecret.txt',
        '/ui/server/register-viewer.js',
        '/ui/assets/none.js',
      ]) {
        expect((await app.inject({ url: path })).statusCode, path).toBe(404);
      }
      expect((await app.inject({ method: 'POST', url: '/ui/' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('without built pages answers a 503 page saying so, while the API answers', async () => {
    const app = createViewerApp({ store, storeLocation: ':memory:', pagesDir: temp.file('nothing-here') });
    try {
      const page = await app.inject({ url: '/ui/' });
      expect(page.statusCode).toBe(503);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('TT_VIEWER_NOT_BUILT');
      expect((await app.inject({ url: '/ui/api/summary' })).json()).toMatchObject({ sessions: 0, calls: 0, lastCallAt: null });
    } finally {
      await app.close();
    }
  });
});
