import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The built library, as `import ... from 'tokentap'` loads it. */
const LIBRARY = new URL('../../dist/index.js', import.meta.url).href;

let sim: SimBackend;
let simUrl: string;
const temp = makeTempDir();
beforeAll(async () => {
  sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [{ times: 'forever', content: 'fine' }] } });
  simUrl = await sim.listen();
});
afterAll(async () => {
  await sim.close();
  temp.remove();
});

/** A script embedding createGateway with the given options (as source text), making one call through it; run with node. */
async function runEmbedding(name: string, optionsSource: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const script = temp.file(`${name}.mjs`);
  writeFileSync(
    script,
    `
import { createGateway } from ${JSON.stringify(LIBRARY)};
const gateway = createGateway({ backendUrl: ${JSON.stringify(simUrl)}, db: ${JSON.stringify(temp.file(`${name}.db`))}, port: 0${optionsSource} });
const url = await gateway.listen();
const response = await fetch(url + '/s/embedded/v1/chat/completions', {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
});
if (response.status !== 200) throw new Error('call failed: ' + response.status);
await response.text();
await gateway.close();
`,
  );
  // spawned, not spawnSync: the simulator answering it runs on this process's event loop
  const child = spawn(process.execPath, [pathToFileURL(script).pathname], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { status, stdout, stderr };
}

describe('the library is quiet unless asked (issue 14)', () => {
  it('createGateway without a logger option writes nothing to stdout or stderr for a call', async () => {
    expect(await runEmbedding('quiet', '')).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('logger: false is quiet too, whatever logLevel says', async () => {
    expect(await runEmbedding('false', ", logger: false, logLevel: 'debug'")).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('logger: true logs JSON lines on stdout at logLevel, the call line among them', async () => {
    const result = await runEmbedding('true', ', logger: true');
    expect(result).toMatchObject({ status: 0, stderr: '' });
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.msg === 'call ended')).toEqual([
      expect.objectContaining({ level: 30, msg: 'call ended', sessionId: 'embedded', status: 'ok', frontDoor: 'openai-chat' }),
    ]);
  });

  it('logger: a level logs from that level', async () => {
    const result = await runEmbedding('debug', ", logger: 'debug'");
    expect(result).toMatchObject({ status: 0, stderr: '' });
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.msg === 'incoming request')).toHaveLength(1);
    expect(lines.filter((line) => line.msg === 'call ended')).toHaveLength(1);
  });
});
