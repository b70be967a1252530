import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER_SCRIPT = fileURLToPath(new URL('./bench-server.js', import.meta.url));

/**
 * Starts bench/bench-server.ts in a process of its own (its mode and options as `args`) and waits for the line with
 * its URL; its IPC channel answers `cpu` (the benches' CPU readings).
 *
 * @example const { url, child } = await startBenchServer(['gateway', '--backend', simUrl, '--db', path]);
 */
export async function startBenchServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return { url: (JSON.parse(line) as { url: string }).url, child };
  throw new Error(`server ${args[0]} exited before listening`);
}
