/**
 * Starts one component of a benchmark in its own process and prints `{"url": ...}` on stdout:
 *   sim                      the simulator in fast mode
 *   gateway BACKEND DB [thread]  tokentap, recording into DB (on a worker thread; `thread`: on its event loop)
 *   gateway BACKEND DB ui|ui-on-loop  the same with the viewer (`serve --ui`): its API on its thread, or on the event loop
 *   pipe BACKEND             a plain Node pipe proxy (the floor: what any proxy costs)
 */
import { createServer, request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { createGateway } from '../gateway/create-gateway.js';
import { createSimBackend } from '../sim/index.js';

async function startPipeProxy(backend: string): Promise<string> {
  const target = new URL(backend);
  const server = createServer((incoming, outgoing) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function main(): Promise<void> {
  const [mode, backend, db, recording] = process.argv.slice(2);
  let url: string;
  if (mode === 'sim') {
    // a context window large enough for the 200 KB bodies (fast mode counts prompt tokens from the body size)
    const sim = await createSimBackend({ fast: true, acceptAnyModel: true, maxModelLen: 10_000_000 });
    url = await sim.listen({ port: 0 });
  } else if (mode === 'gateway' && backend !== undefined && db !== undefined) {
    const viewer = recording === 'ui' || recording === 'ui-on-loop' ? { ui: true, uiInWorker: recording === 'ui' } : {};
    url = await createGateway({ backendUrl: backend, db, port: 0, logLevel: 'silent', recordInWorker: recording !== 'thread', ...viewer }).listen();
  } else if (mode === 'pipe' && backend !== undefined) {
    url = await startPipeProxy(backend);
  } else {
    throw new Error('usage: bench-server sim | gateway BACKEND DB [thread|ui|ui-on-loop] | pipe BACKEND');
  }
  process.stdout.write(JSON.stringify({ url }) + '\n');
  // the bench asks over IPC for CPU time used so far, to report the cost per call of the main thread and of all threads
  process.on('message', () => process.send?.({ mainCpuMs: mainThreadCpuMs(), processCpuMs: totalCpuMs() }));
}

/**
 * CPU ms of the calling (main) thread, from Linux's /proc/thread-self/stat (utime + stime in 10 ms ticks); NaN
 * elsewhere. CPU time, not wall time: a thread waiting for a core on a busy machine is not counted.
 */
function mainThreadCpuMs(): number {
  try {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

function totalCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

void main();
