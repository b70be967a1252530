import { closeSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { TokentapError } from '../../core/errors/tokentap-error.js';

/**
 * A dataset file being written: bytes go to a temp file beside `path` and appear at `path` only on `commit()`,
 * so a crash or an abort never leaves a half-written dataset where a trainer would read it.
 */
export interface TempOutputFile {
  /** the final path, absolute */
  readonly path: string;
  readonly tempPath: string;
  /** bytes written so far */
  readonly bytes: number;
  /** Appends all of `bytes` (a short write is retried, as fs.writeSync may write less than asked). */
  write(bytes: Uint8Array): void;
  /** fsync, close, then move the temp file onto `path`; refuses (and removes the temp file) when `path` appeared meanwhile and `force` is not set */
  commit(): void;
  /** close and remove the temp file; safe to call twice or after a failed commit */
  abort(): void;
}

/**
 * Checks `path` (parent folder exists, no file there unless `force`) and opens `.<name>.tmp-<pid>-<random>` in the
 * same folder (same file system, so the final move is a rename).
 *
 * @example
 * const file = openTempOutputFile('/data/train.jsonl', { force: false });
 * file.write(Buffer.from('{"a":1}\n'));
 * file.commit(); // /data/train.jsonl now exists, the temp file is gone
 */
export function openTempOutputFile(path: string, options: { force: boolean }): TempOutputFile {
  const finalPath = resolve(path);
  assertParentFolder(finalPath);
  // checked before `force`: a rename never replaces a folder, and it would fail only after the whole export
  if (isFolder(finalPath))
    throw notWritable(finalPath, `${finalPath} is a folder: give the dataset file's path (e.g. ${join(finalPath, 'train.jsonl')})`);
  if (!options.force && exists(finalPath)) throw pathExists(finalPath);
  const tempPath = join(dirname(finalPath), `.${basename(finalPath)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  let descriptor: number | undefined = openTemp(tempPath, finalPath);
  let bytes = 0;
  let settled = false;

  const closeDescriptor = (): void => {
    if (descriptor === undefined) return;
    const open = descriptor;
    descriptor = undefined;
    closeSync(open);
  };
  const removeTemp = (): void => {
    try {
      unlinkSync(tempPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  };

  return {
    path: finalPath,
    tempPath,
    get bytes() {
      return bytes;
    },
    write(chunk) {
      if (descriptor === undefined) throw new Error(`${finalPath}: write after the file was committed or aborted`);
      for (let offset = 0; offset < chunk.length;) offset += writeSync(descriptor, chunk, offset, chunk.length - offset);
      bytes += chunk.length;
    },
    commit() {
      if (settled || descriptor === undefined) throw new Error(`${finalPath}: commit after the file was committed or aborted`);
      fsyncSync(descriptor);
      closeDescriptor();
      try {
        moveIntoPlace(tempPath, finalPath, options.force);
      } catch (error) {
        removeTemp();
        throw error;
      }
      settled = true;
    },
    abort() {
      if (settled) return;
      settled = true;
      try {
        closeDescriptor();
      } finally {
        removeTemp();
      }
    },
  };
}

/**
 * Without force, link() then unlink(): link fails with EEXIST instead of replacing a file that appeared since the
 * writer was created (rename would clobber it). File systems without hard links fall back to check-then-rename.
 */
function moveIntoPlace(tempPath: string, finalPath: string, force: boolean): void {
  if (force) {
    renameSync(tempPath, finalPath);
    return;
  }
  try {
    linkSync(tempPath, finalPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw pathExists(finalPath, error);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS' && code !== 'EMLINK') throw error;
    if (exists(finalPath)) throw pathExists(finalPath, error);
    renameSync(tempPath, finalPath);
    return;
  }
  unlinkSync(tempPath);
}

function assertParentFolder(finalPath: string): void {
  const parent = dirname(finalPath);
  let kind: 'folder' | 'file' | 'missing' = 'missing';
  try {
    kind = statSync(parent).isDirectory() ? 'folder' : 'file';
  } catch {
    // missing or unreadable: reported as missing
  }
  if (kind === 'folder') return;
  const message = kind === 'file' ? `${finalPath}: ${parent} is a file, not a folder` : `${finalPath}: the folder ${parent} does not exist`;
  throw new TokentapError('EXPORT_NO_PARENT_DIR', { message, details: { path: finalPath } });
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** 'wx': never reuse a file that happens to have the temp name. A folder that takes no new file is the user's to fix. */
function openTemp(tempPath: string, finalPath: string): number {
  try {
    return openSync(tempPath, 'wx');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOENT in a folder that exists: a pseudo file system such as /proc, which creates no files
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS' && code !== 'ENOENT' && code !== 'EISDIR') throw error;
    throw notWritable(finalPath, `cannot write ${finalPath}: ${describeErrno(code)} in ${dirname(finalPath)}`, error);
  }
}

function describeErrno(code: string): string {
  if (code === 'EROFS') return 'a read-only file system';
  if (code === 'EACCES' || code === 'EPERM') return 'no permission to create a file';
  return 'this folder takes no new files';
}

function notWritable(finalPath: string, message: string, cause?: unknown): TokentapError {
  return new TokentapError('EXPORT_PATH_NOT_WRITABLE', { message, cause, details: { path: finalPath } });
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function pathExists(finalPath: string, cause?: unknown): TokentapError {
  return new TokentapError('EXPORT_PATH_EXISTS', {
    message: `${finalPath} already exists (--force, or force: true, replaces it)`,
    cause,
    details: { path: finalPath },
  });
}
