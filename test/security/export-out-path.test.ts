import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

/** The built CLI, as `npx tokentap` runs it (npm test builds first). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

let fixture: ExportFixture;
let work: string;
beforeAll(async () => {
  fixture = await recordExportFixture();
  work = join(fixture.dir, 'work');
  mkdirSync(join(work, 'a', 'b'), { recursive: true });
}, 60_000);
afterAll(() => {
  fixture?.remove();
});

/** Runs `tokentap export` from `work`, so relative paths climb out of it. */
function exportTo(out: string, ...extra: string[]): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, 'export', '--db', fixture.dbPath, '--format', 'verl', '--out', out, '--quiet', ...extra], {
    cwd: join(work, 'a', 'b'),
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  return { status: result.status, stderr: result.stderr };
}

/** Every file under the fixture folder, temp files included; not the database's own -wal and -shm (a reader makes them). */
function allFiles(directory = fixture.dir): string[] {
  return readdirSync(directory, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? allFiles(join(directory, entry.name)) : [join(directory, entry.name)]))
    .filter((file) => !file.startsWith(`${fixture.dbPath}-`));
}

describe('tokentap export --out writes only where asked, and only a dataset', () => {
  it('refuses passwd-like targets: any name not ending in .jsonl or .parquet is exit 2, nothing written', () => {
    const before = allFiles();
    for (const out of [
      '../../etc/passwd',
      '../../../../../../../../etc/passwd',
      '/etc/passwd',
      '../../.bashrc',
      '../../x.jsonl/..',
      '../../authorized_keys',
      '../../x.jsonl.sh',
      '../../x.JSONL ',
    ]) {
      const result = exportTo(out);
      expect(result.status, `${out}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/\.jsonl|\.parquet|exists|director/);
    }
    expect(allFiles()).toEqual(before);
  });

  it('a path that climbs with .. lands exactly where it resolves, and nowhere else', () => {
    const before = new Set(allFiles());
    expect(exportTo('../../climbed.jsonl').status).toBe(0);
    const added = allFiles().filter((file) => !before.has(file));
    expect(added).toEqual([join(work, 'climbed.jsonl')]);
    expect(readFileSync(join(work, 'climbed.jsonl'), 'utf8').trim().split('\n').length).toBeGreaterThan(0);
  });

  it('never writes through a symlink: without --force it is refused, with --force the link itself is replaced', () => {
    const target = join(work, 'precious.jsonl');
    writeFileSync(target, 'do not touch\n');
    const link = join(work, 'a', 'link.jsonl');
    symlinkSync(target, link);
    expect(exportTo('../link.jsonl').status).toBe(2);
    expect(readFileSync(target, 'utf8')).toBe('do not touch\n');
    expect(exportTo('../link.jsonl', '--force').status).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('do not touch\n');
    expect(readFileSync(link, 'utf8')).not.toBe('do not touch\n');
  });

  it('leaves no temp file behind, whatever was refused', () => {
    expect(allFiles().filter((file) => /\.tmp-/.test(file))).toEqual([]);
    expect(existsSync('/etc/passwd.jsonl')).toBe(false);
  });
});
