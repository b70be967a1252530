import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The simulator's runtime names, which the root surface carried before issue 13. */
const SIM_NAMES = [
  'createSimBackend',
  'runSimBackend',
  'parseSimScript',
  'simScriptSchema',
  'simFaultSchema',
  'DEFAULT_MODEL_NAME',
  'DEFAULT_MAX_MODEL_LEN',
];

interface Probe {
  resolved: string;
  simNames: string[];
  rootNames: string[];
}

interface Manifest {
  exports: Record<string, string | { types?: string; import?: string }>;
}

let probe: Probe;

beforeAll(() => {
  // the built dist/ already there is read (npm test builds first); build only where there is none
  if (!existsSync(`${ROOT}dist/sim/index.js`)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  // node itself resolves the names through package.json `exports`, as in a project that installed tokentap
  // (a package may import itself by its name)
  const script = [
    "const resolved = import.meta.resolve('tokentap/sim');",
    "const sim = await import('tokentap/sim');",
    "const root = await import('tokentap');",
    'console.log(JSON.stringify({ resolved, simNames: Object.keys(sim), rootNames: Object.keys(root) }));',
  ].join('\n');
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  probe = JSON.parse(output.trim().split('\n').pop()!) as Probe;
}, 120_000);

describe('the simulator is the subpath export tokentap/sim, not part of the main surface (issue 13)', () => {
  it("import 'tokentap/sim' resolves through the exports map to the built simulator and has its names", () => {
    expect(probe.resolved).toBe(new URL('dist/sim/index.js', `file://${ROOT}`).href);
    expect(probe.simNames).toEqual(expect.arrayContaining(SIM_NAMES));
  });

  it("import 'tokentap' has the gateway and none of the simulator's names", () => {
    expect(probe.rootNames).toContain('createGateway');
    expect(probe.rootNames.filter((name) => SIM_NAMES.includes(name))).toEqual([]);
  });

  it('the ./sim entry names its types, and both files are built', () => {
    const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as Manifest;
    expect(manifest.exports['./sim']).toEqual({ types: './dist/sim/index.d.ts', import: './dist/sim/index.js' });
    for (const file of ['dist/sim/index.d.ts', 'dist/sim/index.js']) expect(existsSync(`${ROOT}${file}`), file).toBe(true);
  });
});
