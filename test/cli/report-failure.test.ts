import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { reportFailure } from '../../cli/report-failure.js';
import { UsageError } from '../../cli/usage-error.js';

function report(error: unknown): { exitCode: number; text: string } {
  let text = '';
  const exitCode = reportFailure(error, { write: (chunk: string) => (text += chunk) });
  return { exitCode, text };
}

function parseArgsRefusal(): unknown {
  try {
    parseArgs({ args: ['--no-such-flag'], options: {}, strict: true });
  } catch (error) {
    return error;
  }
  throw new Error('parseArgs took an unknown flag');
}

describe('reportFailure (how every command ends on an error)', () => {
  it("prints a user's mistake as one line without a stack and exits 2", () => {
    const mistakes = [
      new UsageError('give --out PATH (.jsonl or .parquet)'),
      new TokentapError('EXPORT_PATH_EXISTS', { message: 'a.jsonl already exists (--force, or force: true, replaces it)' }),
      new TokentapError('EXPORT_UNKNOWN_FORMAT', { message: "unknown trainer format 'verll'" }),
      new TokentapError('EXPORT_INVALID_OPTION', { message: 'Invalid export options: rewardMin' }),
      parseArgsRefusal(),
    ];
    for (const mistake of mistakes) {
      const { exitCode, text } = report(mistake);
      expect(exitCode, String(mistake)).toBe(2);
      expect(text).toBe(`tokentap: ${(mistake as Error).message}\n`);
    }
  });

  it('treats a bug as a bug: a TypeError, a plain Error or a fault code keeps its stack and exits 1, never 2', () => {
    const faults = [
      new TypeError("Cannot read properties of undefined (reading 'length')"),
      new RangeError('Invalid array length'),
      new TokentapError('STORE_CORRUPT', { message: 'body blob 00 is missing' }),
      new TokentapError('TT_INVALID_ARGUMENT', { message: 'iterate samples of either `sessionIds` or `all: true`' }),
      // a code that merely looks like a mistake, on an error that is no TokentapError
      Object.assign(new Error('lookalike'), { code: 'TT_USAGE' }),
    ];
    for (const fault of faults) {
      const { exitCode, text } = report(fault);
      expect(exitCode, String(fault)).toBe(1);
      expect(text).toBe(`tokentap: ${fault.stack}\n`);
      expect(text.split('\n').length).toBeGreaterThan(2);
    }
    expect(report('thrown string')).toEqual({ exitCode: 1, text: 'tokentap: thrown string\n' });
  });
});
