// The viewer's pages, bundled at build time into dist/ui (served at /ui/ by `tokentap ui` and `serve --ui`):
// `vite build --config ui/app/vite.config.ts`. No JSX plugin: Oxc compiles the JSX for Preact.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../../dist/ui', import.meta.url));

/**
 * dist/ui also holds tsc's output for ui/ (dist/ui/server/, dist/ui/viewer-api.js), so vite may not empty it
 * (emptyOutDir): only the previous build's hashed assets are removed, so none is left behind to be packaged.
 */
const removeOldAssets: Plugin = {
  name: 'tokentap-remove-old-assets',
  apply: 'build',
  buildStart() {
    rmSync(`${outDir}/assets`, { recursive: true, force: true });
  },
};

export default defineConfig({
  root,
  // relative asset URLs, so the same build works at /ui/ and at the root
  base: './',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [removeOldAssets],
  build: {
    outDir,
    emptyOutDir: false,
    sourcemap: false,
    modulePreload: false,
    reportCompressedSize: false,
  },
});
