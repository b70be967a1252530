/**
 * `npm run demo`: the whole loop on one machine, no GPU. It starts the simulated vLLM backend (real Qwen3
 * tokenizer and chat template), the tokentap gateway in front of it, and a small tool-using agent on the
 * official `openai` client pointed at session `demo-1`; then prints the recorded trajectory and writes the
 * calls' token rows to `tokentap-demo-calls.jsonl`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateway } from '../gateway/create-gateway.js';
import { createSimBackend, type SimScript } from '../sim/index.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../reconstruct/tokenizer/load-hf-tokenizer.js';
import { runToolAgent } from './tool-agent.js';

const DEMO_DB = 'tokentap-demo.db';
const print = (text = ''): void => void process.stdout.write(text + '\n');
const DEMO_EXPORT = 'tokentap-demo-calls.jsonl';
const SESSION = 'demo-1';

/** The simulated model's replies: write a file, read it back, answer. */
const DEMO_SCRIPT: SimScript = {
  replies: [
    { match: { lastUserContains: 'hello.py' }, reasoning: 'The user wants a hello script. I will write it first.', toolCalls: [{ name: 'write_file', arguments: { path: 'hello.py', content: 'print("hello from tokentap")\n' } }] },
    { match: { lastToolResultContains: 'wrote' }, reasoning: 'Now check the file.', toolCalls: [{ name: 'read_file', arguments: { path: 'hello.py' } }] },
    { match: { lastToolResultContains: 'hello from tokentap' }, reasoning: 'It is correct.', content: 'Done: hello.py prints "hello from tokentap".' },
  ],
};

function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

async function main(): Promise<void> {
  removeDatabase(DEMO_DB);
  const sim = await createSimBackend({ script: DEMO_SCRIPT, acceptAnyModel: true });
  const simUrl = await sim.listen();
  const gateway = createGateway({ backendUrl: simUrl, db: DEMO_DB, port: 0, logLevel: 'warn' });
  const url = await gateway.listen();
  const workdir = mkdtempSync(join(tmpdir(), 'tokentap-demo-'));
  print(`simulated vLLM backend: ${simUrl}\ntokentap gateway:       ${url}\nagent base URL:         ${url}/s/${SESSION}/v1\n`);
  try {
    const result = await runToolAgent({ baseURL: `${url}/s/${SESSION}/v1`, model: 'Qwen/Qwen3-8B', task: 'Create hello.py that prints a greeting, check it, and tell me when done.', workdir, stream: true });
    print(`agent answered after ${result.turns} model calls: ${result.answer.trim()}\n`);
    await printTrajectory(gateway.store);
  } finally {
    await gateway.close();
    await sim.close();
    rmSync(workdir, { recursive: true, force: true });
  }
  print(`\ninspect it yourself:\n  npx tokentap sessions --db ${DEMO_DB}\n  npx tokentap show ${SESSION} --db ${DEMO_DB}`);
}

async function printTrajectory(store: ReturnType<typeof createGateway>['store']): Promise<void> {
  const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
  const calls = store.listCalls(SESSION);
  const rows: string[] = [];
  print(`recorded trajectory of session ${SESSION}: ${calls.length} calls`);
  for (const call of calls) {
    const prompt = Array.from(call.promptTokenIds ?? []);
    const completion = Array.from(call.completionTokenIds ?? []);
    const logprobs = Array.from(call.completionLogprobs ?? []);
    const meanLogprob = logprobs.reduce((sum, value) => sum + value, 0) / Math.max(1, logprobs.length);
    print(`\n#${call.seq} ${call.status} ${call.frontDoor} ${call.stream ? 'stream' : 'json'}: ${prompt.length} prompt tokens, ${completion.length} sampled tokens (mean logprob ${meanLogprob.toFixed(3)}), finish ${call.finishReason}, ttft ${call.timeToFirstTokenMs} ms`);
    print(`  prompt tail   ${JSON.stringify(tokenizer.decode(prompt.slice(-12)))}`);
    print(`  sampled text  ${JSON.stringify(tokenizer.decode(completion))}`);
    print(`  sampled ids   [${completion.slice(0, 12).join(', ')}${completion.length > 12 ? ', ...' : ''}]`);
    rows.push(JSON.stringify({ session_id: call.sessionId, seq: call.seq, call_id: call.id, status: call.status, prompt_token_ids: prompt, completion_token_ids: completion, completion_logprobs: logprobs, finish_reason: call.finishReason }));
  }
  writeFileSync(DEMO_EXPORT, rows.join('\n') + '\n');
  print(`\nwrote ${rows.length} call rows (prompt ids, sampled ids, logprobs) to ${DEMO_EXPORT}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
