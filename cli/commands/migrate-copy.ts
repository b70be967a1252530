import { existsSync, statSync } from 'node:fs';
import { isInstanceLive } from '../../gateway/gateway-instance.js';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { copyStore, type CopyProgress, type CopyReport } from '../../store/copy-store.js';
import { isPostgresUrl, redactPostgresUrl } from '../../store/index.js';
import { createProgressBar, type ProgressBar } from '../progress-bar.js';
import { oneLine } from '../one-line.js';
import { UsageError } from '../usage-error.js';

/** Without a terminal, a progress line at most this often (and one per table), never one per row. */
const PLAIN_PROGRESS_MS = 5_000;
/** The exit code of a copy stopped by Ctrl-C or SIGTERM (128 + SIGINT): a later run resumes it. */
const INTERRUPTED_EXIT_CODE = 130;

/**
 * `tokentap migrate --from SQLITE_FILE --to POSTGRES_URL`: copies the store (store/copy-store.ts), a progress bar on
 * a terminal (plain lines otherwise), the summary with the verification's digest on stdout. The URL's password is
 * never printed. Ctrl-C stops after the page being written; the same command resumes.
 */
export async function runMigrateCopy(from: string, to: string): Promise<number> {
  checkPaths(from, to);
  const label = redactPostgresUrl(to);
  const progress = createProgressOutput();
  const interrupt = new AbortController();
  const stop = (): void => {
    if (!interrupt.signal.aborted) process.stderr.write('\ntokentap: stopping after the page being written\n');
    interrupt.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let report: CopyReport;
  try {
    report = await copyStore({
      from,
      to,
      isGatewayLive: (row) => isInstanceLive(row, Date.now()),
      signal: interrupt.signal,
      onProgress: progress.update,
    });
  } catch (error) {
    throw asUsageMistake(error, to) ?? error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    progress.finish();
  }
  if (report.verification === null || report.tables === null) {
    process.stderr.write(`tokentap: interrupted after ${report.rowsCopied} rows; run the same command again to resume\n`);
    return INTERRUPTED_EXIT_CODE;
  }
  const { calls, sessions, digest } = report.verification;
  const rows = report.tables.reduce((sum, table) => sum + table.rows, 0);
  const migrated = report.migratedFrom === null ? '' : ` (its schema migrated from version ${report.migratedFrom} first)`;
  const how = report.resumed ? `resumed: ${report.rowsCopied} rows copied by this run` : `${report.rowsCopied} rows copied`;
  process.stdout.write(
    `copied ${from}${migrated} to ${label}: ${rows} rows in ${report.tables.length} tables (${how})\n` +
      `verified: ${calls} calls in ${sessions} sessions, row counts equal, digest ${digest}\n`,
  );
  return 0;
}

function checkPaths(from: string, to: string): void {
  if (isPostgresUrl(from)) throw new UsageError(`--from takes the SQLite store's file; ${redactPostgresUrl(from)} is PostgreSQL`);
  if (!existsSync(from)) throw new UsageError(`no SQLite store at ${from} (give --from FILE)`);
  if (statSync(from).isDirectory()) throw new UsageError(`--from ${from} is a folder: give the SQLite store's file`);
  if (!isPostgresUrl(to)) throw new UsageError(`--to takes a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DATABASE), not ${to}`);
  try {
    new URL(to);
  } catch {
    throw new UsageError(`--to ${redactPostgresUrl(to)} is not a valid URL`);
  }
}

/**
 * A server that is not there, a wrong password or a database never created: the user's URL, one line and exit 2.
 * Matched by the error's own cause (the PostgreSQL client's error): a fault of the copy itself keeps its stack.
 */
function asUsageMistake(error: unknown, url: string): Error | null {
  if (!isTokentapError(error)) return null;
  const code: string = error.code;
  const cause = (error as { cause?: unknown }).cause;
  if ((code !== 'STORE_OPEN_FAILED' && code !== 'STORE_DATABASE_UNREACHABLE') || !(cause instanceof Error) || cause.name !== 'PgError') return null;
  return new UsageError(hidePassword(oneLine(error.message), url), { cause: error });
}

/** The message without the URL's password, wherever the server's or the client's text quoted it. */
function hidePassword(text: string, url: string): string {
  const password = /^postgres(?:ql)?:\/\/[^:/@]*:([^@]*)@/i.exec(url)?.[1];
  if (password === undefined || password === '') return text;
  const forms = new Set([password, safeDecode(password)]);
  let hidden = text;
  for (const form of forms) hidden = hidden.split(form).join('***');
  return hidden;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface ProgressOutput {
  update(progress: CopyProgress): void;
  finish(): void;
}

/** A bar on a terminal; elsewhere a line per table (and per phase), and one every PLAIN_PROGRESS_MS within a long table. */
function createProgressOutput(): ProgressOutput {
  if (process.stderr.isTTY === true) {
    const bar: ProgressBar = createProgressBar(process.stderr, 'rows');
    const verifyBar: ProgressBar = createProgressBar(process.stderr, 'sessions verified');
    return {
      update(progress) {
        if (progress.phase === 'copy') bar.update(progress.rowsDone, progress.rowsTotal, progress.table);
        else {
          bar.finish();
          verifyBar.update(progress.sessionsDone, progress.sessionsTotal);
        }
      },
      finish() {
        bar.finish();
        verifyBar.finish();
      },
    };
  }
  let step = '';
  let printedAt = 0;
  return {
    update(progress) {
      const now = Date.now();
      const current = progress.phase === 'copy' ? progress.table : 'verify';
      if (current === step && now - printedAt < PLAIN_PROGRESS_MS) return;
      step = current;
      printedAt = now;
      const line =
        progress.phase === 'copy'
          ? `copying ${progress.table}: ${progress.rowsDone}/${progress.rowsTotal} rows`
          : `verifying: ${progress.sessionsDone}/${progress.sessionsTotal} sessions`;
      process.stderr.write(`tokentap: ${line}\n`);
    },
    finish() {},
  };
}
