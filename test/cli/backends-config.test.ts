import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../cli/load-config.js';
import { parseServeArgs } from '../../cli/commands/serve.js';
import { backendSpecs } from '../../gateway/config/backend-specs.js';
import { gatewayConfigSchema } from '../../gateway/config/gateway-config.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => {
  temp?.remove();
  temp = undefined;
});

function writeTemp(name: string, text: string): string {
  temp ??= makeTempDir();
  const file = temp.file(name);
  writeFileSync(file, text);
  return file;
}

/** What loadConfig refuses, as the one line the CLI prints. */
function refusal(flags: Record<string, string | string[] | undefined>, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadConfig(flags, env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('backends: the replicas of a fleet (issue 15)', () => {
  it('collects a repeated --backend flag into the list, ids <flavour>-<n> per flavour in order', () => {
    const flags = parseServeArgs([
      '--backend',
      'vllm=http://10.0.0.1:8000',
      '--backend',
      'sglang=http://10.0.0.3:30000',
      '--backend=vllm=http://10.0.0.2:8000',
    ]);
    expect(flags.backend).toEqual(['vllm=http://10.0.0.1:8000', 'sglang=http://10.0.0.3:30000', 'vllm=http://10.0.0.2:8000']);
    const config = loadConfig(flags as Record<string, string[]>, {});
    expect(backendSpecs(config)).toEqual([
      { id: 'vllm-1', flavour: 'vllm', url: 'http://10.0.0.1:8000', models: [], key: undefined },
      { id: 'sglang-1', flavour: 'sglang', url: 'http://10.0.0.3:30000', models: [], key: undefined },
      { id: 'vllm-2', flavour: 'vllm', url: 'http://10.0.0.2:8000', models: [], key: undefined },
    ]);
  });

  it('reads TOKENTAP_BACKENDS as a comma-separated list, and a flag wins over it', () => {
    const fromEnv = loadConfig({}, { TOKENTAP_BACKENDS: 'vllm=http://a:8000, sglang=https://b:30000' });
    expect(fromEnv.backends.map((entry) => [entry.id, entry.url])).toEqual([
      ['vllm-1', 'http://a:8000'],
      ['sglang-1', 'https://b:30000'],
    ]);
    const flagWins = loadConfig({ backend: ['sglang=http://c:30000'] }, { TOKENTAP_BACKENDS: 'vllm=http://a:8000' });
    expect(flagWins.backends.map((entry) => entry.id)).toEqual(['sglang-1']);
  });

  it('takes strings and objects side by side in a JSON file, with ids, models and keys; the gateway key is the default key', () => {
    const file = writeTemp(
      'fleet.json',
      JSON.stringify({
        backendKey: 'fleet-wide-key',
        backends: ['vllm=http://a:8000', { id: 'ref', flavour: 'sglang', url: 'http://b:30000', models: ['ref-model'], key: 'own-key' }],
      }),
    );
    expect(backendSpecs(loadConfig({ config: file }, {}))).toEqual([
      { id: 'vllm-1', flavour: 'vllm', url: 'http://a:8000', models: [], key: 'fleet-wide-key' },
      { id: 'ref', flavour: 'sglang', url: 'http://b:30000', models: ['ref-model'], key: 'own-key' },
    ]);
  });

  it('without backends, the one backendUrl is replica "default", its flavour detected at start', () => {
    expect(backendSpecs(loadConfig({ 'backend-url': 'http://gpu-1:8000' }, {}))).toEqual([
      { id: 'default', flavour: 'vllm', url: 'http://gpu-1:8000', models: [], key: undefined, detectFlavour: true },
    ]);
    expect(backendSpecs(gatewayConfigSchema.parse({}))[0]).toMatchObject({ id: 'default', url: 'http://127.0.0.1:8000', detectFlavour: true });
  });

  it('loads docs/examples/fleet.yaml: two vLLM replicas and one SGLang replica of the policy model, a small model beside', () => {
    const file = fileURLToPath(new URL('../../docs/examples/fleet.yaml', import.meta.url));
    const config = loadConfig({ config: file }, {});
    expect(backendSpecs(config)).toEqual([
      { id: 'vllm-1', flavour: 'vllm', url: 'http://10.0.0.1:8000', models: ['Qwen/Qwen3-8B'], key: undefined },
      { id: 'vllm-2', flavour: 'vllm', url: 'http://10.0.0.2:8000', models: ['Qwen/Qwen3-8B'], key: undefined },
      { id: 'sglang-policy', flavour: 'sglang', url: 'http://10.0.0.3:30000', models: ['Qwen/Qwen3-8B'], key: undefined },
      { id: 'small', flavour: 'vllm', url: 'http://10.0.0.4:8000/v1', models: ['Qwen/Qwen3-0.6B'], key: 'replace-with-the-small-servers-key' },
    ]);
    expect(config).toMatchObject({ tokenFaithful: ['Qwen/Qwen3-8B'], requireSessionKey: true, port: 4000 });
  });

  it('reads .yml as YAML too, and the same schema refuses what it refuses in JSON', () => {
    const file = writeTemp('fleet.yml', 'backends:\n  - flavour: vllm\n    url: http://a:8000\n    prot: 1\n');
    expect(refusal({ config: file })).toBe(`invalid configuration: "backends" entry 1 in ${file}: unknown key "prot"`);
  });

  it('refuses a flavour it does not know, naming the flag value that gave it', () => {
    expect(refusal({ backend: ['vllm=http://a:8000', 'tgi=http://b:8080'] })).toBe(
      'invalid configuration: --backend "tgi=http://b:8080" (at flavour): Invalid option: expected one of "vllm"|"sglang"',
    );
    expect(refusal({}, { TOKENTAP_BACKENDS: 'vllm=http://a:8000,tgi=http://b:8080' })).toBe(
      'invalid configuration: TOKENTAP_BACKENDS entry "tgi=http://b:8080" (environment) (at flavour): Invalid option: expected one of "vllm"|"sglang"',
    );
    expect(refusal({ backend: ['http://a:8000'] })).toBe(
      'invalid configuration: --backend "http://a:8000": "http://a:8000" is not FLAVOUR=URL (vllm=http://10.0.0.1:8000, sglang=http://10.0.0.3:30000)',
    );
    expect(refusal({ backend: ['vllm=ftp://a'] })).toMatch(/^invalid configuration: --backend "vllm=ftp:\/\/a" \(at url\): a backend url is http/);
  });

  it('refuses two replicas with one id, the default ids included', () => {
    const file = writeTemp(
      'fleet.yaml',
      ['backends:', '  - vllm=http://a:8000', '  - { id: vllm-1, flavour: vllm, url: "http://b:8000" }', ''].join('\n'),
    );
    expect(refusal({ config: file })).toBe(`invalid configuration: "backends" entry 2 in ${file} (at id): backend id "vllm-1" is also entry 1's`);
  });

  it('refuses backendUrl and backends together, naming both as they were set', () => {
    expect(refusal({ 'backend-url': 'http://gpu-1:8000', backend: ['vllm=http://gpu-2:8000'] })).toBe(
      'invalid configuration: --backend "vllm=http://gpu-2:8000": cannot be given with --backend-url (the one backend when no backends are listed): give one of the two',
    );
    const file = writeTemp('both.json', JSON.stringify({ backendUrl: 'http://gpu-1:8000', backends: ['vllm=http://gpu-2:8000'] }));
    expect(refusal({ config: file })).toBe(
      `invalid configuration: "backends" in ${file}: cannot be given with "backendUrl" (the one backend when no backends are listed): give one of the two`,
    );
    expect(gatewayConfigSchema.safeParse({ backendUrl: 'http://gpu-1:8000', backends: ['vllm=http://gpu-2:8000'] }).success).toBe(false);
  });

  it('says in one line, naming the file, why a YAML file does not parse or is no mapping', () => {
    const broken = writeTemp('broken.yaml', 'backends:\n  - flavour: vllm\n   url: http://a:8000\n');
    expect(refusal({ config: broken })).toMatch(new RegExp(`^config file ${broken} is not a YAML mapping: [^\\n]+ at line 3, column \\d+$`));
    const list = writeTemp('list.yaml', '- vllm=http://a:8000\n');
    expect(refusal({ config: list })).toBe(`config file ${list} is not a YAML mapping: its top level is a list`);
  });
});
