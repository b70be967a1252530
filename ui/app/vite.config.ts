// The viewer's pages, bundled at build time into dist/ui (served at /ui/ by `tokentap ui` and `serve --ui`):
// `vite build --config ui/app/vite.config.ts`. No plugin: Oxc compiles the JSX for Preact.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  // relative asset URLs, so the same build works at /ui/ and at the root
  base: './',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/ui', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    // the pages are one small app: one script, one stylesheet
    modulePreload: false,
    reportCompressedSize: false,
  },
});
