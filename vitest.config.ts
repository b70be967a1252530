import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // FC_SEED=N fixes every property test's random cases (CI sets it); unset, each run draws new ones
    setupFiles: ['test/helpers/fast-check-seed.ts'],
    // one throw-away PostgreSQL server for the run (scripts/start-postgres.sh), for the store's PostgreSQL engine
    // and Debian's Chromium for the viewer's browser tests (scripts/install-chromium.sh), found once
    globalSetup: ['test/helpers/postgres-global-setup.ts', 'test/helpers/chromium-global-setup.ts'],
    // Servers on port 0 and temp databases per test: files run in parallel, tests in a file sequentially.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
