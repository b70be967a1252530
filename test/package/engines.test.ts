import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface Semver {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
}

// semver is fastify's own runtime dependency, so it is installed wherever tokentap is
const semver = createRequire(import.meta.url)('semver') as Semver;

interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string } | string[];
}

const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string }; overrides?: unknown };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, LockEntry> };

describe('the Node versions package.json promises (issue 14: EBADENGINE on every install)', () => {
  it('every locked dependency, runtime and dev, accepts the oldest Node that engines.node admits', () => {
    const floor = semver.minVersion(manifest.engines.node)?.version;
    expect(floor).toBe('20.19.0');
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range === undefined || semver.satisfies(floor!, range) ? [] : [`${path}@${entry.version} wants node ${range}`];
      });
    expect(refusing).toEqual([]);
  });

  it('resolves it without overrides, which npm applies to the root project only and never to a project installing tokentap', () => {
    // the cookie fix is a direct pin of light-my-request@6.6.0 (cookie ^1, Node >=18), which fastify's ^6.0.0 dedupes to
    expect(manifest.overrides).toBeUndefined();
  });
});
