// ESLint (typescript-eslint) for the whole tree: `npm run lint`. Formatting is Prettier's (`npm run format:check`).
// The floors of the house (docs/architecture.md) are rules here: a module may import only the floors below it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Forbids relative imports that reach into any of the named top-level folders. */
function mayNotImport(folders, why) {
  return {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^\\.{1,2}/(?:\\.\\./)*(?:${folders.map((folder) => (folder.includes('/') ? folder : `${folder}(?:/|$)`)).join('|')})`,
            message: why,
          },
        ],
      },
    ],
  };
}

const ABOVE_STORE = ['reconstruct', 'trainer-adapters', 'export', 'ui', 'gateway', 'cli', 'sim', 'index\\.js'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.harness-cache/**', '.tmp/**', 'coverage/**', 'ui/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // `typeof import('x')` stays allowed: vitest's importOriginal<typeof import('x')>() and lazy requires need it
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      'no-console': 'error',
    },
  },
  // the command line and the scripts print; nothing else may
  { files: ['cli/**', 'bench/**', 'examples/**', 'scripts/**', 'test/**', '.ci/**', 'sim/cli.ts'], rules: { 'no-console': 'off' } },
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  { files: ['core/**'], rules: mayNotImport(['model-format', 'store', ...ABOVE_STORE], 'core/ is the ground floor: it imports nothing of tokentap') },
  { files: ['model-format/**'], rules: mayNotImport(['store', ...ABOVE_STORE], 'model-format/ imports only core/') },
  { files: ['store/**'], rules: mayNotImport(['model-format', ...ABOVE_STORE], 'store/ imports only core/') },
  {
    files: ['reconstruct/**'],
    rules: mayNotImport(
      ['trainer-adapters', 'export', 'ui', 'gateway', 'cli', 'sim', 'index\\.js'],
      'reconstruct/ sits below trainer-adapters/, export/ and gateway/',
    ),
  },
  {
    files: ['trainer-adapters/**'],
    rules: mayNotImport(['export', 'ui', 'gateway', 'cli', 'sim', 'index\\.js'], 'trainer-adapters/ sit below export/ and gateway/'),
  },
  {
    files: ['export/**'],
    rules: mayNotImport(['ui', 'gateway', 'cli', 'sim', 'index\\.js'], 'export/ knows no HTTP: it sits below ui/ and gateway/'),
  },
  // the viewer's server sits on export/ and below gateway/ (which mounts it for `serve --ui`); its pages (ui/app/) import only its wire types
  { files: ['ui/server/**', 'ui/*.ts'], rules: mayNotImport(['gateway', 'cli', 'sim', 'index\\.js'], 'ui/ sits below gateway/ and cli/') },
  {
    // the pages run in the browser
    files: ['ui/app/**'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        history: 'readonly',
        location: 'readonly',
        sessionStorage: 'readonly',
        getComputedStyle: 'readonly',
        requestAnimationFrame: 'readonly',
        cancelAnimationFrame: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        ResizeObserver: 'readonly',
        TextDecoderStream: 'readonly',
        URLSearchParams: 'readonly',
        Response: 'readonly',
        HTMLElement: 'readonly',
        HTMLDivElement: 'readonly',
        HTMLSpanElement: 'readonly',
        KeyboardEvent: 'readonly',
        EventTarget: 'readonly',
      },
    },
    rules: mayNotImport(
      ['core', 'model-format', 'store', 'reconstruct', 'trainer-adapters', 'export', 'gateway', 'cli', 'sim', 'index\\.js', 'server'],
      'the pages run in the browser: they import only ui/viewer-api.ts and their own files',
    ),
  },
  { files: ['gateway/**'], rules: mayNotImport(['cli', 'sim', 'index\\.js'], 'gateway/ sits below cli/ and index.ts, and never uses the simulator') },
  {
    files: ['sim/**'],
    rules: mayNotImport(
      ['gateway', 'store', 'reconstruct', 'export', 'trainer-adapters', 'cli', 'index\\.js', 'model-format/(?!tokenizer/|chat-template/)'],
      'the simulator generates: it may use model-format/ for the tokenizer and chat template only, never a parser or the gateway',
    ),
  },
);
