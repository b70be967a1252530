import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionListResponse, ViewerSummary } from '../../ui/viewer-api.js';
import { recordViewerFixture, type ViewerFixture } from '../helpers/record-viewer-fixture.js';

/** The built CLI, as the installed `tokentap` command runs it (npm run build first). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

const EMPTY_FILE = createHash('sha256').digest('hex');

/** Every file of the database (main, -wal, -shm) by name, with a hash of its bytes. */
function databaseFiles(dbPath: string): Record<string, string> {
  const folder = join(dbPath, '..');
  const name = dbPath.slice(folder.length + 1);
  return Object.fromEntries(
    readdirSync(folder)
      .filter((file) => file.startsWith(name))
      .map((file) => [
        file,
        createHash('sha256')
          .update(readFileSync(join(folder, file)))
          .digest('hex'),
      ]),
  );
}

/** Starts `tokentap ui` and resolves with the URL it prints on its one line. */
function startUi(args: string[]): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI, 'ui', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = /^tokentap ui: (http:\/\/\S+)\n/.exec(stdout);
      if (line !== null) resolve({ child, url: line[1]!, exited });
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    void exited.then((code) => reject(new Error(`tokentap ui exited ${code} before listening: ${stdout}${stderr}`)));
  });
}

describe('tokentap ui', () => {
  let fixture: ViewerFixture;
  beforeAll(async () => {
    fixture = await recordViewerFixture();
  }, 60_000);
  afterAll(async () => fixture?.remove());

  it('prints its URL, serves the viewer, leaves the database byte for byte as it was, and exits 0 on SIGTERM', async () => {
    const before = databaseFiles(fixture.dbPath);
    const { child, url, exited } = await startUi(['--db', fixture.dbPath, '--port', '0']);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/$/);
    const api = new URL('api/', url);
    const summary = (await (await fetch(new URL('summary', api))).json()) as ViewerSummary;
    expect(summary).toMatchObject({ sessions: 6, live: false, tokenText: false, store: { engine: 'sqlite', where: fixture.dbPath } });
    // every route, so a write anywhere would show
    const sessions = (await (await fetch(new URL('sessions?drift=history-edited', api))).json()) as SessionListResponse;
    expect(sessions.total).toBe(1);
    const session = sessions.sessions[0]!.id;
    const detail = (await (await fetch(new URL(`sessions/${session}`, api))).json()) as { calls: Array<{ id: string }> };
    for (const path of [
      'sessions',
      `sessions/${session}/samples/merge/1`,
      `sessions/${session}/samples/per-call/0`,
      `calls/${detail.calls[0]!.id}`,
      'groups',
      `groups/${fixture.groupId}`,
      'stats',
      'openapi.json',
    ]) {
      expect((await fetch(new URL(path, api))).status, path).toBe(200);
    }
    const events = await fetch(new URL('events', api));
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    await events.body!.cancel();
    // the built pages, and their hashed assets cached for good
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    const script = /src="(\.\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await fetch(new URL(script!, url));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const root = await fetch(new URL('/', url), { redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/ui/');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // the database and its write-ahead log hold the same bytes; a reader of a WAL database that finds no -wal and
    // -shm makes them (SQLite's wal-index, which every reader writes its read marks into): the -wal empty
    const after = databaseFiles(fixture.dbPath);
    expect(after['tokentap.db']).toBe(before['tokentap.db']);
    expect(after['tokentap.db-wal']).toBe(before['tokentap.db-wal'] ?? EMPTY_FILE);
    expect(Object.keys(after).sort()).toEqual(['tokentap.db', 'tokentap.db-shm', 'tokentap.db-wal']);
  });

  it('a missing database is one line and exit 2', () => {
    const missing = join(fixture.dbPath, '..', 'no-such.db');
    const result = spawnSync(process.execPath, [CLI, 'ui', '--db', missing, '--port', '0'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`tokentap: no database at ${missing} (give --db FILE)\n`);
    expect(existsSync(missing)).toBe(false);
  });

  it('a bad port is one line and exit 2', () => {
    const result = spawnSync(process.execPath, [CLI, 'ui', '--db', fixture.dbPath, '--port', 'eighty'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^tokentap: --port must be a whole number[^\n]*\n$/);
  });
});
