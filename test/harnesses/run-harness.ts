import { spawn } from 'node:child_process';

export interface RunHarnessOptions {
  /** the agent's executable */
  bin: string;
  args: string[];
  /** the agent's working directory (a temp folder) */
  cwd: string;
  /** the agent's HOME (a temp folder): no user config leaks in, none is written to the real home */
  home: string;
  /** variables on top of the isolated base environment */
  env?: Record<string, string>;
  /** the agent is killed (its whole process group) after this long */
  timeoutMs?: number;
}

export interface HarnessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** exit status and the output tails, for assertion messages */
  describe(): string;
}

export const DEFAULT_HARNESS_TIMEOUT_MS = 180_000;

/**
 * The environment an agent runs in: nothing inherited but PATH, so no API key, base URL or config of the machine
 * running the tests reaches it; HOME and the XDG folders point into the temp home.
 */
export function isolatedEnv(home: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    USER: 'tokentap',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_DATA_HOME: `${home}/.local/share`,
    XDG_STATE_HOME: `${home}/.local/state`,
    XDG_CACHE_HOME: `${home}/.cache`,
    ...env,
  };
}

/** Runs an agent headless (stdin closed) and collects its output; never rejects on a non-zero exit. */
export function runHarness(options: RunHarnessOptions): Promise<HarnessResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_HARNESS_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    // its own process group, so a timeout also ends the shells and helpers the agent started
    const child = spawn(options.bin, options.args, {
      cwd: options.cwd,
      env: isolatedEnv(options.home, options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      resolve({
        exitCode,
        signal,
        timedOut,
        stdout: out,
        stderr: err,
        describe: () =>
          `${options.bin} exited ${exitCode ?? signal}${timedOut ? ` (killed after ${timeoutMs} ms)` : ''}\n` +
          `--- stdout (tail)\n${out.slice(-3000)}\n--- stderr (tail)\n${err.slice(-3000)}`,
      });
    });
  });
}
