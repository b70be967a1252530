import { describe, expect, it } from 'vitest';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { fromFastifyError } from '../../../gateway/errors/from-fastify-error.js';

describe('fromFastifyError', () => {
  it('passes a TokentapError with an HTTP status on as it is, from another copy of tokentap too', async () => {
    const limited = new TokentapError('TT_RATE_LIMITED');
    expect(fromFastifyError(limited)).toBe(limited);
    // a second copy of the module, as a second tokentap in node_modules would load it
    const copyUrl = '../../../core/errors/tokentap-error.js?copy';
    const copy = (await import(/* @vite-ignore */ copyUrl)) as { TokentapError: typeof TokentapError };
    expect(copy.TokentapError).not.toBe(TokentapError);
    const foreign = new copy.TokentapError('TT_SESSION_NOT_FOUND');
    expect(fromFastifyError(foreign)).toBe(foreign);
  });

  it("answers a store's or an exporter's error that reaches a handler as TT_INTERNAL, never with its own code and message", () => {
    for (const inner of [
      new TokentapError('STORE_CORRUPT', { message: 'body blob 00ff is missing' }),
      new TokentapError('EXPORT_INVALID_VALUE'),
      new TokentapError('TT_INVALID_ARGUMENT'),
    ]) {
      const failure = fromFastifyError(inner);
      expect(failure).toMatchObject({ code: 'TT_INTERNAL', status: 500, message: 'Internal error' });
      expect(failure.cause).toBe(inner);
    }
  });
});
