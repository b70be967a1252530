import { existsSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUserMistakeCode } from '../../core/errors/error-codes.js';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { openStore } from '../../store/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { postgresAvailable, postgresUnavailable, postgresUrl } from '../helpers/test-postgres.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir('tokentap-store-paths-');
});
afterEach(() => temp.remove());

function openError(path: string, readonly = false): { code: string; message: string } {
  try {
    openStore({ path, readonly }).close();
  } catch (error) {
    if (!isTokentapError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error(`opened ${path}`);
}

// SQLite only: file paths (a folder, a file that is not SQLite, a missing folder); PostgreSQL's URLs are below
describe('sqlite: openStore names a path that cannot hold a database (issue 14)', () => {
  it('a folder, writable or read-only, is STORE_NOT_A_DATABASE (SQLite said "disk I/O error")', () => {
    for (const readonly of [false, true])
      expect(openError(temp.path, readonly)).toEqual({ code: 'STORE_NOT_A_DATABASE', message: `${temp.path} is a folder, not a database file` });
  });

  it('a file that is not SQLite is STORE_NOT_A_DATABASE and stays as it was', () => {
    const readme = temp.file('README.md');
    writeFileSync(readme, '# tokentap\n'.repeat(100));
    for (const readonly of [false, true])
      expect(openError(readme, readonly)).toEqual({
        code: 'STORE_NOT_A_DATABASE',
        message: `${readme} is not a tokentap database (not a SQLite file)`,
      });
    expect(existsSync(`${readme}-wal`)).toBe(false);
  });

  it('a missing folder, or a file where the folder should be, is STORE_NO_FOLDER, and no folder is created', () => {
    expect(openError(temp.file('missing/t.db'))).toEqual({
      code: 'STORE_NO_FOLDER',
      message: `${temp.file('missing/t.db')}: the folder ${temp.file('missing')} does not exist (create it first)`,
    });
    expect(existsSync(temp.file('missing'))).toBe(false);
    writeFileSync(temp.file('notes.txt'), 'x');
    expect(openError(temp.file('notes.txt/t.db')).code).toBe('STORE_NO_FOLDER');
  });

  it("marks these and a newer schema as a user's mistake (the CLI prints one line, exit 2)", () => {
    for (const code of ['STORE_NOT_A_DATABASE', 'STORE_NO_FOLDER', 'STORE_SCHEMA_TOO_NEW']) expect(isUserMistakeCode(code)).toBe(true);
  });
});

describe.skipIf(!postgresAvailable())(
  `postgres: openStore names a URL it cannot open${postgresAvailable() ? '' : ` (skipped: ${postgresUnavailable()})`}`,
  () => {
    const urlTo = (change: (url: URL) => void): string => {
      const url = new URL(postgresUrl() as string);
      change(url);
      return url.toString();
    };

    it('a database the server lacks, or a server not listening, is STORE_DATABASE_UNREACHABLE, read-only or not, naming the URL without its password', () => {
      const missing = urlTo((url) => {
        url.password = 'secret-pw';
        url.pathname = '/tt_never_created';
      });
      const closedPort = urlTo((url) => {
        url.port = '1';
      });
      for (const readonly of [false, true]) {
        for (const path of [missing, closedPort]) {
          const failure = openError(path, readonly);
          expect(failure.code).toBe('STORE_DATABASE_UNREACHABLE');
          expect(failure.message).not.toContain('secret-pw');
        }
      }
      expect(openError(missing).message).toContain('tt_never_created');
      expect(isUserMistakeCode('STORE_DATABASE_UNREACHABLE')).toBe(true);
    });
  },
);
