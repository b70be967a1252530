/**
 * The backend of bench/load.ts, in its own process so its timers and writes do not share the gateway's or the
 * clients' event loop: the simulator in fast mode, every stream paced at `--tokens-per-second` (0: unpaced) and every
 * reply long enough that a request's `max_tokens` ends it, so each call streams exactly `max_tokens` tokens, in
 * chunks of `--stream-interval` tokens after the first (vLLM's flag of that name).
 * Prints `{"url": ...}` on stdout once it listens; stops on SIGTERM.
 *
 *   node dist/bench/load-sim.js --tokens-per-second 50 --reply-tokens 200 --stream-interval 1
 */
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { createSimBackend } from '../sim/index.js';

/** Scripted text of at least `tokens` Qwen3 tokens (each sentence is about ten), cut by the request's max_tokens. */
function longReplyText(tokens: number): string {
  const sentences = Math.max(1, Math.ceil(tokens / 4));
  return Array.from({ length: sentences }, (_, index) => `Step ${index} of the plan is done and checked.`).join(' ');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'tokens-per-second': { type: 'string', default: '50' }, 'reply-tokens': { type: 'string', default: '200' }, 'stream-interval': { type: 'string', default: '1' } } });
  const tokensPerSecond = Number(values['tokens-per-second']);
  const sim = await createSimBackend({
    fast: true,
    acceptAnyModel: true,
    ...(tokensPerSecond > 0 ? { tokensPerSecond } : {}),
    streamInterval: Number(values['stream-interval']),
    // 'length': the reply ends where max_tokens cuts it, without an end-of-turn token, as a long generation does
    script: { replies: [{ text: longReplyText(Number(values['reply-tokens'])), finishReason: 'length', times: 'forever' }] },
  });
  // the script's text is tokenized on the first request (the tokenizer loads then): not on a measured call
  await sim.app.inject({ method: 'POST', url: '/v1/chat/completions', payload: { model: 'warm-up', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }] } });
  const url = await sim.listen({ port: 0 });
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  await once(process, 'SIGTERM');
  await sim.close();
}

void main();
