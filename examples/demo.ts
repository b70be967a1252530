/**
 * `npm run demo`: the whole loop on one machine, no GPU. It starts the simulated vLLM backend (real Qwen3
 * tokenizer and chat template), the tokentap gateway in front of it, opens a rollout session with
 * `gateway.createSession()` and runs a small tool-using agent on the official `openai` client in it (its base URL
 * and key come from the session); then rewards and ends the session, prints the recorded trajectory and its
 * training sample (token-faithful mode: one verified sample for the whole trajectory), and exports it as a verl
 * dataset, `tokentap-demo.verl.parquet` (what `tokentap export --format verl` writes; docs/export.md).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createGateway, reconstructSession, verifySample, type Store } from '../index.js';
import { createSimBackend, type SimScript } from '../sim/index.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../model-format/tokenizer/load-hf-tokenizer.js';
import { exportDataset } from '../export/export-dataset.js';
import { runToolAgent } from './tool-agent.js';

const SESSION = 'demo-1';
const EXPECTED_FILE = 'print("hello from tokentap")\n';

/** The simulated model's replies, in order, once each (a token-id prompt has no text to match on): write a file, read it back, answer. */
const DEMO_SCRIPT: SimScript = {
  replies: [
    {
      reasoning: 'The user wants a hello script. I will write it first.',
      toolCalls: [{ name: 'write_file', arguments: { path: 'hello.py', content: EXPECTED_FILE } }],
    },
    { reasoning: 'Now check the file.', toolCalls: [{ name: 'read_file', arguments: { path: 'hello.py' } }] },
    { reasoning: 'It is correct.', content: 'Done: hello.py prints "hello from tokentap".' },
  ],
};

export interface DemoOptions {
  /** the database to write (removed first); default `tokentap-demo.db` */
  db?: string;
  /** the dataset file (verl rows, `.parquet` or `.jsonl`); default `tokentap-demo.verl.parquet` */
  exportPath?: string;
  /** where lines go; default stdout */
  print?: (line: string) => void;
}

function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/**
 * Runs the demo; resolves with the session's reward once everything is printed and closed.
 *
 * @example await runDemo({ db: '/tmp/demo.db', exportPath: '/tmp/demo.verl.parquet', print: console.log });
 */
export async function runDemo(options: DemoOptions = {}): Promise<{ reward: number; calls: number }> {
  const db = options.db ?? 'tokentap-demo.db';
  const exportPath = options.exportPath ?? 'tokentap-demo.verl.parquet';
  const print = options.print ?? ((line: string) => void process.stdout.write(line + '\n'));
  removeDatabase(db);
  const sim = await createSimBackend({ script: DEMO_SCRIPT, acceptAnyModel: true });
  const simUrl = await sim.listen();
  // token-faithful mode: each turn extends the session's exact token history, so the whole trajectory merges
  // into one training sample although Qwen3's template drops earlier <think> blocks when it re-renders
  const gateway = createGateway({ backendUrl: simUrl, db, port: 0, logLevel: 'warn', tokenFaithful: ['*'], modelDir: qwen3TokenizerDir() });
  const url = await gateway.listen();
  const workdir = mkdtempSync(join(tmpdir(), 'tokentap-demo-'));
  try {
    const session = await gateway.createSession({ id: SESSION, task: { prompt: 'hello.py' }, tags: ['demo'] });
    print(
      `simulated vLLM backend: ${simUrl}\ntokentap gateway:       ${url}\nsession ${session.id}:        ${session.openai.baseURL} (key ${session.apiKey.slice(0, 6)}...)\n`,
    );
    const result = await runToolAgent({
      ...session.openai,
      model: 'Qwen/Qwen3-8B',
      task: 'Create hello.py that prints a greeting, check it, and tell me when done.',
      workdir,
      stream: true,
    });
    print(`agent answered after ${result.turns} model calls: ${result.answer.trim()}\n`);
    // the reward: did the agent leave the file we asked for?
    const reward = readFileSync(join(workdir, 'hello.py'), 'utf8') === EXPECTED_FILE ? 1 : 0;
    await session.reward(reward);
    await session.end('completed');
    const calls = await printTrajectory(gateway.store, print);
    const { summary } = await exportDataset(gateway.store, { format: 'verl', out: exportPath, force: true, modelDir: qwen3TokenizerDir() });
    print(`\nexported ${summary.samples} verl sample (${summary.tokens} tokens, ${summary.trainedTokens} trained) to ${exportPath}`);
    return { reward, calls };
  } finally {
    await gateway.close();
    await sim.close();
    rmSync(workdir, { recursive: true, force: true });
    print(
      `\ninspect it yourself:\n  npx tokentap sessions --db ${db}\n  npx tokentap show ${SESSION} --db ${db}\n  npx tokentap export --db ${db} --format slime --out demo.slime.jsonl\n  npx tokentap ui --db ${db} --tokenizer qwen3   # the same in the browser, token by token`,
    );
  }
}

async function printTrajectory(store: Store, print: (line: string) => void): Promise<number> {
  const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
  const calls = store.listCalls(SESSION);
  print(`recorded trajectory of session ${SESSION}: ${calls.length} calls`);
  for (const call of calls) {
    const prompt = Array.from(call.promptTokenIds ?? []);
    const completion = Array.from(call.completionTokenIds ?? []);
    const logprobs = Array.from(call.completionLogprobs ?? []);
    const meanLogprob = logprobs.reduce((sum, value) => sum + value, 0) / Math.max(1, logprobs.length);
    print(
      `\n#${call.seq} ${call.status} ${call.frontDoor} ${call.stream ? 'stream' : 'json'}: ${prompt.length} prompt tokens, ${completion.length} sampled tokens (mean logprob ${meanLogprob.toFixed(3)}), finish ${call.finishReason}, ttft ${call.timeToFirstTokenMs} ms`,
    );
    print(`  prompt tail   ${JSON.stringify(tokenizer.decode(prompt.slice(-12)))}`);
    print(`  sampled text  ${JSON.stringify(tokenizer.decode(completion))}`);
    print(`  sampled ids   [${completion.slice(0, 12).join(', ')}${completion.length > 12 ? ', ...' : ''}]`);
  }
  print('');
  for (const sample of reconstructSession(store, SESSION)) {
    const trained = sample.lossMask.reduce((sum, bit) => sum + bit, 0);
    const verdict = verifySample(
      sample,
      calls.filter((call) => sample.callIds.includes(call.id)),
    );
    print(
      `training sample ${sample.chainIndex}: ${sample.tokens.length} tokens, ${trained} trained, ${sample.callIds.length} calls merged, reward ${sample.reward}, status ${sample.status}, verified ${verdict.ok}`,
    );
  }
  return calls.length;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runDemo().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
