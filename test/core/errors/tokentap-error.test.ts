import { describe, expect, it } from 'vitest';
import { TokentapError, isTokentapError } from '../../../core/errors/tokentap-error.js';

interface ErrorsModule {
  TokentapError: typeof TokentapError;
  isTokentapError: typeof isTokentapError;
}

/** A second copy of the module, as a second tokentap in node_modules would load it: its own class, its own table. */
async function importSecondCopy(): Promise<ErrorsModule> {
  const url = '../../../core/errors/tokentap-error.js?copy';
  return (await import(/* @vite-ignore */ url)) as ErrorsModule;
}

describe('TokentapError', () => {
  it('is recognised when another copy of tokentap built it, by isTokentapError and by instanceof', async () => {
    const copy = await importSecondCopy();
    expect(copy.TokentapError).not.toBe(TokentapError);
    const foreign = new copy.TokentapError('STORE_CALL_NOT_FOUND');
    expect(isTokentapError(foreign)).toBe(true);
    expect(isTokentapError(foreign, 'STORE_CALL_NOT_FOUND')).toBe(true);
    expect(foreign instanceof TokentapError).toBe(true);
    // and the other way round
    expect(copy.isTokentapError(new TokentapError('TT_INTERNAL'))).toBe(true);
  });

  it('is recognised by its Symbol.for brand alone, and an error that merely has a code is not', () => {
    const branded = { [Symbol.for('tokentap.error')]: true, code: 'TT_INTERNAL', message: 'from elsewhere' };
    expect(isTokentapError(branded)).toBe(true);
    expect(branded instanceof TokentapError).toBe(true);
    const lookalike = Object.assign(new Error('Session not found'), { code: 'TT_SESSION_NOT_FOUND', status: 404 });
    expect(isTokentapError(lookalike)).toBe(false);
    expect(lookalike instanceof TokentapError).toBe(false);
    for (const value of [null, undefined, 'TT_INTERNAL', 42, { code: 'TT_INTERNAL' }]) expect(isTokentapError(value)).toBe(false);
  });

  it('matches a code when one is asked for', () => {
    const error = new TokentapError('STORE_SCHEMA_OUTDATED');
    expect(isTokentapError(error, 'STORE_SCHEMA_OUTDATED')).toBe(true);
    expect(isTokentapError(error, 'STORE_SCHEMA_TOO_NEW')).toBe(false);
  });

  it('takes status, type and message from the one table, 500 for a code without an HTTP status', () => {
    expect(new TokentapError('TT_SESSION_NOT_FOUND')).toMatchObject({
      code: 'TT_SESSION_NOT_FOUND',
      status: 404,
      type: 'not_found_error',
      message: 'Session not found',
      param: null,
    });
    expect(new TokentapError('EXPORT_PATH_EXISTS', { message: 'a.jsonl already exists' })).toMatchObject({
      status: 500,
      type: 'api_error',
      message: 'a.jsonl already exists',
    });
    expect(new TokentapError('TT_BACKEND_ERROR', { status: 429 }).status).toBe(429);
  });

  it('keeps a body to send apart from the cause, and out of what is enumerated (logs)', () => {
    const cause = new Error('socket hang up');
    const body = { error: { message: 'boom', type: 'BadRequestError', param: null, code: 400 } };
    const error = new TokentapError('TT_BACKEND_ERROR', { status: 400, cause, body });
    expect(error.cause).toBe(cause);
    expect(error.body).toBe(body);
    expect(Object.keys(error)).not.toContain('body');
    expect(new TokentapError('TT_BACKEND_ERROR').body).toBeUndefined();
  });
});
