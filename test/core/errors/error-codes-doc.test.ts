import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isHttpErrorCode, isUserMistakeCode } from '../../../core/errors/error-codes.js';

const ERRORS_DOC = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

/** The codes docs/errors.md lists: the first cell of each table row, `CODE`. */
function documentedCodes(): string[] {
  return [...ERRORS_DOC.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1] as string);
}

describe('the one error table', () => {
  it('and docs/errors.md list exactly the same codes, each once', () => {
    const documented = documentedCodes();
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('holds every family: the gateway codes with an HTTP status, the store and export codes without one', () => {
    const codes = Object.keys(ERROR_CODES);
    expect(codes.every((code) => /^(TT|STORE|EXPORT)_[A-Z0-9_]+$/.test(code))).toBe(true);
    expect(codes.filter((code) => code.startsWith('STORE_') || code.startsWith('EXPORT_')).some(isHttpErrorCode)).toBe(false);
    expect(isHttpErrorCode('TT_SESSION_NOT_FOUND')).toBe(true);
    // the CLI's exit 2: a refused path is the user's mistake, a corrupt store or an unwritable value is not
    expect(['TT_USAGE', 'EXPORT_PATH_EXISTS', 'EXPORT_UNKNOWN_FORMAT', 'EXPORT_INVALID_OPTION'].every(isUserMistakeCode)).toBe(true);
    expect(['TT_INTERNAL', 'TT_INVALID_ARGUMENT', 'STORE_CORRUPT', 'EXPORT_INVALID_VALUE', 'NOT_A_CODE'].some(isUserMistakeCode)).toBe(false);
  });
});
