/**
 * Finds Debian's Chromium for the viewer's browser tests once per run (scripts/install-chromium.sh, which installs it
 * when missing and it can) and hands its path to the tests (`inject('chromium')`, read through
 * test/helpers/browser.ts). Where it cannot be had (the script exits 3), the browser tests skip naming why, except
 * under CI, where .ci/run installs it and they fail naming why: the same policy as PostgreSQL's, judged by the browser
 * tests themselves so that the rest of the run still reports.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export interface ChromiumForTests {
  /** the browser's executable, or null */
  path: string | null;
  /** why there is none, when path is null */
  unavailable: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumForTests;
  }
}

export default function setup(project: TestProject): void {
  const script = join(import.meta.dirname, '../../scripts/install-chromium.sh');
  try {
    const path = execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    project.provide('chromium', { path, unavailable: null });
  } catch (error) {
    const { status, stderr } = error as { status?: number; stderr?: string };
    const why = (stderr ?? '').trim() || `install-chromium.sh exited ${status}`;
    if (status !== 3) throw new Error(`scripts/install-chromium.sh failed: ${why}`, { cause: error });
    project.provide('chromium', { path: null, unavailable: why });
  }
}
