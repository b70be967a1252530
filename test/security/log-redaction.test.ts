import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../gateway/create-logger.js';
import { createSessionKey } from '../../gateway/rollouts/session-keys.js';
import { createLogCensor } from '../../gateway/security/create-log-censor.js';

function capture(secrets: string[], pretty = false): { logger: ReturnType<typeof createLogger>; text: () => string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', destination, secrets, pretty }), text: () => lines.join('') };
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
    logger.info(
      {
        req: {
          headers: {
            authorization: 'Bearer sk-harness',
            'x-api-key': 'sk-ant-harness',
            'proxy-authorization': 'Basic abc',
            cookie: 'c=1',
            'user-agent': 'kept',
          },
        },
      },
      'request',
    );
    logger.info({ headers: { authorization: 'Bearer sk-harness-2', 'x-api-key': 'sk-ant-harness-2' } }, 'headers');
    for (const value of ['sk-harness', 'sk-ant-harness', 'Basic abc', 'c=1']) expect(text()).not.toContain(value);
    expect(text()).toContain('kept');
  });
});

describe('secrets are censored before any formatting: JSON lines and pino-pretty lines alike (issue 12)', () => {
  const admin = 'admin-token-secret-0123456789';
  const backendKey = 'backend-key-secret-0123456789';
  const sessionKey = createSessionKey();
  const harnessKey = 'sk-harness-0123456789abcdefXYZ';
  const password = 'userinfo-pass-0123';
  const secrets = [admin, backendKey, sessionKey, harnessKey, password];

  for (const pretty of [false, true]) {
    it(`${pretty ? 'pretty (the real pino-pretty)' : 'JSON'}: URLs, headers, errors, bindings and messages keep no secret`, async () => {
      const { logger, text } = capture([admin, backendKey], pretty);
      logger.info(
        { req: { method: 'GET', url: `/tokentap/v1/state?token=${admin}&limit=5`, headers: { authorization: `Bearer ${sessionKey}` } } },
        'incoming request',
      );
      logger.info({ url: `/s/${backendKey}/v1/chat/completions?api_key=${harnessKey}` }, 'a key in a path and a query');
      logger.info({ url: `/s/run-1/v1/models?key=${encodeURIComponent(`${admin}&/`)}` }, 'percent-encoded');
      logger.warn(
        { err: new Error(`POST http://user:${password}@backend:8000/v1/chat/completions failed`, { cause: new Error(`as ${sessionKey}`) }) },
        'backend failed',
      );
      logger.error(new Error(`upstream said ${backendKey}`));
      logger.info('%s asked', `Bearer ${sessionKey}`);
      logger
        .child({ backend: `http://user:${password}@backend:8000` })
        .info({ backendRequest: { headers: { authorization: `Bearer ${backendKey}`, 'x-api-key': harnessKey } } }, 'child');
      logger.info({ target: new URL(`http://user:${password}@backend/v1?access_token=${admin}`) }, 'a URL object');
      logger.info('done');
      await expect.poll(() => text()).toContain('done');
      const logged = text();
      for (const secret of secrets) expect(logged, secret).not.toContain(secret);
      // what is not secret stays readable
      for (const kept of [
        '/tokentap/v1/state?token=[Redacted]&limit=5',
        '/s/[Redacted]/v1/chat/completions?api_key=[Redacted]',
        'http://[Redacted]@backend:8000',
        'upstream said [Redacted]',
        'Bearer [Redacted] asked',
        'incoming request',
      ]) {
        expect(logged).toContain(kept);
      }
      if (pretty) expect(logged).toMatch(/INFO.*incoming request/);
      else
        expect(() =>
          logged
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as unknown),
        ).not.toThrow();
    });
  }

  it('a logged value is never changed by censoring it', () => {
    const { logger } = capture([admin]);
    const fields = { url: `/x?token=${admin}`, headers: { authorization: `Bearer ${admin}` } };
    const error = new Error(`said ${admin}`);
    logger.info({ ...fields, err: error }, 'logged');
    expect(fields).toEqual({ url: `/x?token=${admin}`, headers: { authorization: `Bearer ${admin}` } });
    expect(error.message).toBe(`said ${admin}`);
  });
});

describe('createLogCensor', () => {
  it('leaves ordinary log text as it is', () => {
    const censor = createLogCensor(['backend-key-secret-0123456789']);
    for (const text of [
      '/s/run-42/v1/chat/completions?stream=true&limit=5',
      'Token ids disagree with usage: 12 tokens, keyboard layout, Basic checks passed',
      'tt-short and tt-run-42 are session ids, not keys; call_abc123 is a tool-call id',
      'http://127.0.0.1:8000/v1/chat/completions',
      'a bearer of good news; Bearer tokens are checked',
    ])
      expect(censor.text(text)).toBe(text);
  });

  it('censors by value, by shape, userinfo and credential parameters', () => {
    const censor = createLogCensor(['backend-key-secret-0123456789', 'sh', undefined]);
    const sessionKey = createSessionKey();
    expect(censor.text('GET /x?key=backend-key-secret-0123456789')).toBe('GET /x?key=[Redacted]');
    expect(censor.text(`key ${sessionKey}.`)).toBe('key [Redacted].');
    expect(censor.text('https://alice:s3cret@proxy.internal:3128/v1')).toBe('https://[Redacted]@proxy.internal:3128/v1');
    expect(censor.text('/cb?code=1&access_token=abc&X-Amz-Signature=def#id_token=ghi')).toBe(
      '/cb?code=1&access_token=[Redacted]&X-Amz-Signature=[Redacted]#id_token=[Redacted]',
    );
    expect(censor.text('sent Authorization: Bearer abc.def-ghi')).toBe('sent Authorization: Bearer [Redacted]');
    // secrets shorter than 4 characters would censor ordinary words: they are left out
    expect(censor.text('shell')).toBe('shell');
  });
});
