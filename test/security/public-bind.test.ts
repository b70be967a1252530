import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { gatewayConfigSchema } from '../../gateway/config/gateway-config.js';
import { createLogger } from '../../gateway/create-logger.js';
import { isLoopbackHost, publicBindWarnings } from '../../gateway/security/public-bind-warnings.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
/** The built library, as an embedding imports it. */
const LIBRARY = new URL('../../dist/index.js', import.meta.url).href;

/** A logger whose lines land in `lines` (parsed), built by the gateway's own createLogger. */
function capturedLogger(): { logger: ReturnType<typeof createLogger>; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

/** An address of this machine that is not loopback, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal)?.address;
}

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function startGateway(options: Parameters<typeof createGateway>[0]): Promise<{ gateway: Gateway; url: string }> {
  const temp = makeTempDir();
  const gateway = createGateway({ db: temp.file('t.db'), port: 0, logLevel: 'silent', backendUrl: 'http://127.0.0.1:9', ...options });
  cleanup.push(
    () => temp.remove(),
    () => gateway.close(),
  );
  return { gateway, url: await gateway.listen() };
}

describe('where the gateway listens', () => {
  it('binds 127.0.0.1 unless told otherwise, so other machines cannot connect', async () => {
    expect(gatewayConfigSchema.parse({}).host).toBe('127.0.0.1');
    const { gateway, url } = await startGateway({});
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(gateway.app.server.address()).toMatchObject({ address: '127.0.0.1' });
    const external = externalAddress();
    if (external !== undefined) {
      const port = Number(new URL(url).port);
      const refused = await new Promise<string>((resolve) => {
        const socket = connect(port, external);
        socket.once('connect', () => {
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(refused).toBe('ECONNREFUSED');
    }
  });

  it('tells loopback addresses from the rest', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1', 'LOCALHOST'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'example.com', '::ffff:10.0.0.1', '128.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('has nothing to say on loopback, and names each missing guard beyond it', () => {
    expect(publicBindWarnings({ host: '127.0.0.1', adminToken: undefined, requireSessionKey: false })).toEqual([]);
    const open = publicBindWarnings({ host: '0.0.0.0', adminToken: undefined, requireSessionKey: false });
    expect(open).toHaveLength(2);
    expect(open.join(' ')).toMatch(/--require-session-key/);
    expect(open.join(' ')).toMatch(/--admin-token/);
    expect(publicBindWarnings({ host: '0.0.0.0', adminToken: 'x'.repeat(16), requireSessionKey: false })).toEqual([
      expect.stringMatching(/--require-session-key/),
    ]);
    expect(publicBindWarnings({ host: '0.0.0.0', adminToken: undefined, requireSessionKey: true })).toEqual([
      expect.stringMatching(/--admin-token.*every model call is refused/),
    ]);
    expect(publicBindWarnings({ host: '0.0.0.0', adminToken: 'x'.repeat(16), requireSessionKey: true })).toEqual([]);
  });

  it('logs a warning when listening on 0.0.0.0 without an admin token, and none when guarded', async () => {
    const open = capturedLogger();
    await startGateway({ host: '0.0.0.0', logger: open.logger });
    // the backend (none listens at 127.0.0.1:9) is reported down at start: that warning is not the bind's
    const warnings = open.lines.filter((line) => line.level === 40 && line.backend === undefined);
    expect(warnings.map((line) => line.msg).join('\n')).toMatch(/bound to 0\.0\.0\.0.*--admin-token/);
    expect(warnings[0]).toMatchObject({ host: '0.0.0.0', adminToken: false });

    const guarded = capturedLogger();
    await startGateway({ host: '0.0.0.0', logger: guarded.logger, adminToken: 'admin-token-0123456789', requireSessionKey: true });
    expect(guarded.lines.filter((line) => line.level === 40 && line.backend === undefined)).toEqual([]);
  });

  // issue 14 made the library quiet by default, which silenced this warning for every embedding
  it('a quiet embedding (no logger) still gets the warning, as a Node process warning on stderr; stdout stays empty', async () => {
    const temp = makeTempDir();
    cleanup.push(() => temp.remove());
    const script = [
      `import { createGateway } from ${JSON.stringify(LIBRARY)};`,
      // recordInWorker: false, as a bare script's `await listen()` exits 13 while the unref'd record worker starts
      `const gateway = createGateway({ host: '0.0.0.0', port: 0, db: ${JSON.stringify(temp.file('e.db'))}, backendUrl: 'http://127.0.0.1:9', recordInWorker: false });`,
      'await gateway.listen();',
      'await gateway.close();',
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/\[TOKENTAP_PUBLIC_BIND\] Warning: tokentap is bound to 0\.0\.0\.0, beyond this machine, without --require-session-key/);
    expect(stderr).toMatch(/\[TOKENTAP_PUBLIC_BIND\] Warning: tokentap is bound to 0\.0\.0\.0 without --admin-token/);
    expect(stdout).toBe('');
  });

  it('the CLI writes the warning to stderr too', async () => {
    const temp = makeTempDir();
    cleanup.push(() => temp.remove());
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--host', '0.0.0.0', '--port', '0', '--db', temp.file('s.db'), '--backend-url', 'http://127.0.0.1:9'],
      { env: { PATH: process.env.PATH }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    cleanup.push(async () => {
      child.kill('SIGTERM');
      await exited;
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        if (/--admin-token/.test(stderr)) resolve();
      });
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    expect(stderr).toMatch(/^WARNING: tokentap is bound to 0\.0\.0\.0.*--require-session-key/m);
    expect(stderr).toMatch(/^WARNING: .*--admin-token/m);
  });
});
