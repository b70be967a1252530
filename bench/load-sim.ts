/**
 * The backend of bench/load.ts, in its own process so its timers and writes do not share the gateway's or the
 * clients' event loop: the simulator in fast mode, every stream paced at `--tokens-per-second` (0: unpaced) and every
 * reply long enough that a request's `max_tokens` ends it, so each call streams exactly `max_tokens` tokens, in
 * chunks of `--stream-interval` tokens after the first (vLLM's flag of that name).
 * `--workers N` (N > 1) runs N simulator processes behind one port (node:cluster hands each new connection to the
 * next worker), so on a many-core machine the backend is not what a load run measures: one simulator thread
 * tokenizes every long prompt it is sent.
 * `--flavour sglang` serves SGLang's wire instead of vLLM's (a replica of `bench/load.ts --flavours vllm,sglang`).
 * Prints `{"url": ..., "pids": [...]}` (the processes whose CPU the bench counts) on stdout once every worker listens;
 * stops on SIGTERM.
 *
 *   node dist/bench/load-sim.js --tokens-per-second 50 --reply-tokens 200 --stream-interval 1 --workers 1 [--flavour sglang]
 */
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { createSimBackend } from '../sim/index.js';

/** Scripted text of at least `tokens` Qwen3 tokens (each sentence is about ten), cut by the request's max_tokens. */
function longReplyText(tokens: number): string {
  const sentences = Math.max(1, Math.ceil(tokens / 4));
  return Array.from({ length: sentences }, (_, index) => `Step ${index} of the plan is done and checked.`).join(' ');
}

type Flags = { 'tokens-per-second': string; 'reply-tokens': string; 'stream-interval': string; workers: string; flavour: string };

/** Starts one simulator in this process on `port` (0: any), after one warm-up call; resolves with its URL. */
async function serveSim(values: Flags, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const tokensPerSecond = Number(values['tokens-per-second']);
  const sim = await createSimBackend({
    fast: true,
    flavour: values.flavour === 'sglang' ? 'sglang' : 'vllm',
    acceptAnyModel: true,
    ...(tokensPerSecond > 0 ? { tokensPerSecond } : {}),
    streamInterval: Number(values['stream-interval']),
    // 'length': the reply ends where max_tokens cuts it, without an end-of-turn token, as a long generation does
    script: { replies: [{ text: longReplyText(Number(values['reply-tokens'])), finishReason: 'length', times: 'forever' }] },
  });
  // the script's text is tokenized on the first request (the tokenizer loads then): not on a measured call
  await sim.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    payload: { model: 'warm-up', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] },
  });
  const url = await sim.listen({ port });
  return { url, close: () => sim.close() };
}

/** The primary of `--workers N`: forks the workers, waits until each listens, prints the shared URL. */
async function runPrimary(values: Flags, workers: number): Promise<void> {
  const forked: Worker[] = [];
  const urls: string[] = [];
  for (let index = 0; index < workers; index++) {
    const worker = cluster.fork();
    forked.push(worker);
    // port 0 in a cluster: the first worker's listen picks a port, every later worker is handed the same one
    const [message] = (await once(worker, 'message')) as [{ url: string }];
    urls.push(message.url);
  }
  if (new Set(urls).size !== 1) throw new Error(`the simulator workers listen on different URLs: ${urls.join(', ')}`);
  process.stdout.write(`${JSON.stringify({ url: urls[0], pids: [process.pid, ...forked.map((worker) => worker.process.pid)] })}\n`);
  await once(process, 'SIGTERM');
  await Promise.all(
    forked.map(async (worker) => {
      const exited = once(worker, 'exit');
      worker.process.kill('SIGTERM');
      await exited;
    }),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'tokens-per-second': { type: 'string', default: '50' },
      'reply-tokens': { type: 'string', default: '200' },
      'stream-interval': { type: 'string', default: '1' },
      workers: { type: 'string', default: '1' },
      flavour: { type: 'string', default: 'vllm' },
    },
  });
  if (values.flavour !== 'vllm' && values.flavour !== 'sglang') throw new Error(`--flavour is vllm or sglang, not ${values.flavour}`);
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers must be a positive integer, not ${values.workers}`);
  if (workers > 1 && cluster.isPrimary) {
    await runPrimary(values, workers);
    return;
  }
  const sim = await serveSim(values, 0);
  if (cluster.isWorker) process.send!({ url: sim.url });
  else process.stdout.write(`${JSON.stringify({ url: sim.url, pids: [process.pid] })}\n`);
  await once(process, 'SIGTERM');
  await sim.close();
  // a worker's channel to the primary would keep it alive
  if (cluster.isWorker) process.disconnect();
}

void main();
