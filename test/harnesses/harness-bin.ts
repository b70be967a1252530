import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root and the folder the pinned agents are installed into (outside tokentap's dependencies). */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const HARNESS_CACHE = join(REPO_ROOT, '.harness-cache');

export type HarnessName = 'claude-code' | 'codex' | 'qwen-code' | 'pi' | 'opencode';

interface HarnessPin {
  package: string;
  version: string;
  bin: string;
}

const pins = JSON.parse(readFileSync(join(REPO_ROOT, 'test/harnesses/pinned-harnesses.json'), 'utf8')) as Record<HarnessName, HarnessPin>;

/** The pinned package and version of an agent (test/harnesses/pinned-harnesses.json). */
export function harnessPin(name: HarnessName): HarnessPin {
  return pins[name];
}

/**
 * The path of an agent's executable in .harness-cache/. Throws (the test fails, it never skips) when the pinned
 * version is not installed, naming the install script.
 */
export function harnessBin(name: HarnessName): string {
  const pin = pins[name];
  const manifest = join(HARNESS_CACHE, 'node_modules', pin.package, 'package.json');
  const bin = join(HARNESS_CACHE, 'node_modules', '.bin', pin.bin);
  const installed = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version : undefined;
  if (installed !== pin.version || !existsSync(bin)) {
    const found = installed === undefined ? 'not installed' : installed !== pin.version ? `${installed} is installed` : `no ${pin.bin} executable`;
    throw new Error(
      `${pin.package}@${pin.version} is needed in .harness-cache/ (${found}). ` +
        'Run `node scripts/install-harnesses.mjs` (or `npm run test:harnesses`, which runs it first).',
    );
  }
  return bin;
}
