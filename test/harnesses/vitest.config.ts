import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Real agent harnesses (Claude Code, Codex, Qwen Code, pi) driven headless through the gateway against the
// simulator: `npm run test:harnesses` (installs the pinned agents into .harness-cache/ first). The files end in
// `.harness.ts`, not `.test.ts`, so the main suite's `test/**/*.test.ts` never picks them up.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/harnesses/**/*.harness.ts'],
    pool: 'forks',
    // each agent is a heavy Node (or native) process; two at a time is what a 2-core CI runner takes
    maxWorkers: 2,
    testTimeout: 240_000,
    hookTimeout: 60_000,
  },
});
