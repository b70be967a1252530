import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Servers on port 0 and temp databases per test: files run in parallel, tests in a file sequentially.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
