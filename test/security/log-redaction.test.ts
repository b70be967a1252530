import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../gateway/create-logger.js';

function capture(secrets: string[]): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(chunk.toString('utf8')); done(); } });
  return { logger: createLogger({ level: 'trace', destination, secrets }), text: () => lines.join('') };
}

describe('createLogger keeps configured secrets and key headers out of every line', () => {
  const secret = 'backend-key-0123456789';

  it('censors a configured secret in messages, errors, fields and child loggers', () => {
    const { logger, text } = capture([secret]);
    logger.info(`message with ${secret}`);
    logger.warn({ err: new Error(`upstream said ${secret}`) }, 'failed');
    logger.info({ url: `http://backend/?key=${secret}`, nested: { deeper: [secret] } }, 'fields');
    logger.child({ callId: 'c1' }).error(`child ${secret}`);
    expect(text()).not.toContain(secret);
    expect(text().match(/\[Redacted\]/g)).toHaveLength(6);
  });

  it('censors a secret also in the form JSON escapes it', () => {
    const quoted = 'token"with\\quotes-0123';
    const { logger, text } = capture([quoted]);
    logger.info({ value: quoted }, 'escaped');
    expect(text()).not.toContain(JSON.stringify(quoted).slice(1, -1));
    expect(text()).toContain('[Redacted]');
  });

  it('redacts authorization, x-api-key, proxy-authorization and cookie headers', () => {
    const { logger, text } = capture([]);
    logger.info({ req: { headers: { authorization: 'Bearer sk-harness', 'x-api-key': 'sk-ant-harness', 'proxy-authorization': 'Basic abc', cookie: 'c=1', 'user-agent': 'kept' } } }, 'request');
    logger.info({ headers: { authorization: 'Bearer sk-harness-2', 'x-api-key': 'sk-ant-harness-2' } }, 'headers');
    for (const value of ['sk-harness', 'sk-ant-harness', 'Basic abc', 'c=1']) expect(text()).not.toContain(value);
    expect(text()).toContain('kept');
  });
});
