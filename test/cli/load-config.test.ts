import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { loadConfig, toEnvName, toFlagName } from '../../cli/load-config.js';
import { UsageError } from '../../cli/usage-error.js';
import { expandBooleanFlags } from '../../cli/commands/serve.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => temp?.remove());

describe('configuration', () => {
  it('spells one vocabulary three ways', () => {
    expect(toFlagName('backendHeadersTimeoutMs')).toBe('backend-headers-timeout-ms');
    expect(toEnvName('backendHeadersTimeoutMs')).toBe('TOKENTAP_BACKEND_HEADERS_TIMEOUT_MS');
  });

  it('takes defaults when nothing is given', () => {
    expect(loadConfig({}, {})).toMatchObject({
      backendUrl: 'http://127.0.0.1:8000',
      port: 4000,
      host: '127.0.0.1',
      bodyLimit: 64 * 1024 * 1024,
      recordFailure: 'refuse',
    });
  });

  it('lets flags win over env, env over the config file, the file over defaults', () => {
    temp = makeTempDir();
    const file = temp.file('tokentap.json');
    writeFileSync(file, JSON.stringify({ port: 1111, host: '0.0.0.0', db: 'from-file.db', model: 'file-model' }));
    const config = loadConfig({ config: file, port: '3333' }, { TOKENTAP_PORT: '2222', TOKENTAP_HOST: '127.0.0.2', TOKENTAP_DB: '' });
    expect(config).toMatchObject({ port: 3333, host: '127.0.0.2', db: 'from-file.db', model: 'file-model' });
  });

  it('rejects bad values with a readable UsageError naming the flag, variable or file key that set them', () => {
    expect(() => loadConfig({ port: 'abc' }, {})).toThrow(UsageError);
    expect(() => loadConfig({ 'record-failure': 'maybe' }, {})).toThrow(/^invalid configuration: --record-failure "maybe": Invalid option/);
    expect(() => loadConfig({ 'backend-url': 'ftp://x' }, {})).toThrow(/--backend-url "ftp:\/\/x"/);
    expect(() => loadConfig({}, { TOKENTAP_BACKEND_URL: 'ftp://x' })).toThrow(/TOKENTAP_BACKEND_URL="ftp:\/\/x" \(environment\)/);
    // a flag wins over the environment, and so is the one named
    expect(() => loadConfig({ port: 'abc' }, { TOKENTAP_PORT: 'xyz' })).toThrow(/^invalid configuration: --port "abc": [^\n]+$/);
  });

  it('reads the rollout settings from flags and env, switches spelled as text', () => {
    const config = loadConfig(
      { 'admin-token': 'a-long-enough-admin-token', 'pause-mode': 'reject' },
      { TOKENTAP_REQUIRE_SESSION_KEY: 'true', TOKENTAP_SESSION_IDLE_TIMEOUT_MS: '5000' },
    );
    expect(config).toMatchObject({
      adminToken: 'a-long-enough-admin-token',
      pauseMode: 'reject',
      requireSessionKey: true,
      sessionIdleTimeoutMs: 5000,
    });
    expect(loadConfig({}, {})).toMatchObject({ requireSessionKey: false, pauseMode: 'hold', sessionIdleTimeoutMs: 1_800_000 });
    expect(loadConfig({ 'require-session-key': 'false' }, { TOKENTAP_REQUIRE_SESSION_KEY: 'yes' }).requireSessionKey).toBe(false);
    expect(() => loadConfig({ 'admin-token': 'short' }, {})).toThrow(
      /^invalid configuration: --admin-token: --admin-token must be at least 16 characters$/,
    );
    expect(() => loadConfig({ 'pause-mode': 'sometimes' }, {})).toThrow(/--pause-mode "sometimes"/);
    expect(() => loadConfig({ 'require-session-key': 'perhaps' }, {})).toThrow(/--require-session-key "perhaps"/);
  });

  it('takes an on/off flag alone as true, or followed by a word', () => {
    expect(expandBooleanFlags(['--require-session-key', '--port', '1'])).toEqual(['--require-session-key=true', '--port', '1']);
    expect(expandBooleanFlags(['--require-session-key'])).toEqual(['--require-session-key=true']);
    expect(expandBooleanFlags(['--require-session-key', 'false'])).toEqual(['--require-session-key', 'false']);
    expect(expandBooleanFlags(['--model', 'true'])).toEqual(['--model', 'true']);
  });

  it('rejects unknown keys in the config file', () => {
    temp = makeTempDir();
    const file = temp.file('bad.json');
    writeFileSync(file, JSON.stringify({ prot: 1 }));
    expect(() => loadConfig({ config: file }, {})).toThrow(/unknown key "prot" in .*bad\.json/);
  });
});
