import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built CLI (`npm run build`), next to this file's compiled copy or in dist/ when run from sources. */
export const BUILT_CLI = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../cli/main.js' : '../dist/cli/main.js', import.meta.url));

export interface GatewayProcessOptions {
  backendUrl: string;
  db: string;
  port: number;
  /** more `tokentap serve` flags, e.g. ['--shutdown-timeout-ms', '500'] */
  args?: string[];
  /** the built CLI to run; default BUILT_CLI */
  cliPath?: string;
  /** a file the gateway's log lines are appended to */
  logFile?: string;
  /**
   * a command the gateway runs under, e.g. `['unshare', '--pid', '--fork', '--kill-child']` (a PID namespace of its
   * own: to gateway-instance.ts another process scope, as on another host); `child` is then that command's process
   */
  launcher?: string[];
}

/** How the gateway process ended. */
export interface GatewayExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * `tokentap serve` running as a child process, as an operator runs it: the thing that gets SIGKILLed or SIGTERMed.
 *
 * @example
 * const gateway = await startGatewayProcess({ backendUrl: simUrl, db: 'k.db', port: 4100 });
 * gateway.child.kill('SIGTERM');
 * const { code } = await gateway.exited; // 0
 */
export interface GatewayProcess {
  /** http://127.0.0.1:PORT */
  url: string;
  child: ChildProcess;
  /** every log line (pino JSON) so far */
  readonly lines: readonly string[];
  /** resolves with the first line (past or future) containing `text`; rejects if the process exits first */
  waitForLine(text: string): Promise<string>;
  exited: Promise<GatewayExit>;
}

/**
 * Spawns `node dist/cli/main.js serve` on the given port and database and resolves once it logs that it listens
 * (rejects if it exits before). Logs at info level: that line, and the drain's, are what callers wait on.
 *
 * @example const gateway = await startGatewayProcess({ backendUrl, db, port, args: ['--shutdown-timeout-ms', '200'] });
 */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const args = [
    'serve',
    '--backend-url',
    options.backendUrl,
    '--db',
    options.db,
    '--port',
    String(options.port),
    '--log-level',
    'info',
    ...(options.args ?? []),
  ];
  const [command, ...launcherArgs] = [...(options.launcher ?? []), process.execPath];
  const child = spawn(command!, [...launcherArgs, options.cliPath ?? BUILT_CLI, ...args], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ text: string; resolve: (line: string) => void }> = [];
  let stderr = '';
  const exited = new Promise<GatewayExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const onLine = (line: string): void => {
    lines.push(line);
    if (options.logFile !== undefined) appendFileSync(options.logFile, `${line}\n`);
    for (const waiter of [...waiters]) {
      if (!line.includes(waiter.text)) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const waitForLine = (text: string): Promise<string> => {
    const seen = lines.find((line) => line.includes(text));
    if (seen !== undefined) return Promise.resolve(seen);
    const found = new Promise<string>((resolve) => waiters.push({ text, resolve }));
    const ended = exited.then((exit) => {
      throw new Error(`tokentap serve exited (${exit.code ?? exit.signal}) before logging "${text}": ${stderr.slice(-2000)}`);
    });
    return Promise.race([found, ended]);
  };
  await waitForLine('tokentap listening');
  return { url: `http://127.0.0.1:${options.port}`, child, lines, waitForLine, exited };
}

/**
 * A loopback port free right now (taken from the OS, then released), so every restart of a gateway can use the same.
 *
 * @example const port = await freePort();
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
