/**
 * `npm run example:harness-rollouts`: Claude Code and Codex run as rollouts from a script. Each run gets its own
 * session (`createSession`): the agent's environment carries the session's base URL and key, so every call it
 * makes is recorded in that session and nowhere else (the gateway runs with `requireSessionKey`). Each run is
 * rewarded by checking the file it was asked to write, then ended; the group's samples are printed.
 * The agents come from `.harness-cache/` (`node scripts/install-harnesses.mjs`) or the PATH.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGateway, iterateSamples, type Sample } from '../index.js';
import { createSimBackend, type SimScript } from '../sim/index.js';
import { claudeCodeCommand, codexCommand, type HarnessCommand } from './harness-commands.js';

export type HarnessName = 'claude-code' | 'codex';

const FILE = 'notes.txt';
const CONTENT = 'tokens are the product';
const PROMPT = `ROLLOUT-TASK: write ${FILE} containing "${CONTENT}", then answer DONE.`;
const MODEL = 'Qwen/Qwen3-8B';
/** Claude Code's small fast model (titles, summaries): routed to a canned side answer */
const SMALL_MODEL = 'tokentap-small-fast';

/** The simulated model for one agent: its own write tool first, then the answer. */
function scriptFor(harness: HarnessName, workdir: string): SimScript {
  const write =
    harness === 'claude-code'
      ? { name: 'Write', arguments: { file_path: join(workdir, FILE), content: CONTENT } }
      : { name: 'exec_command', arguments: { cmd: `printf '%s' '${CONTENT}' > ${FILE} && echo wrote-notes` } };
  return {
    replies: [
      { match: { model: SMALL_MODEL }, times: 'forever', content: 'Harness rollout' },
      { match: { lastToolResultContains: harness === 'claude-code' ? FILE : 'wrote-notes' }, content: 'DONE' },
      { match: { lastUserContains: 'ROLLOUT-TASK', hasTools: true }, reasoning: `I will write ${FILE}.`, toolCalls: [write] },
    ],
    otherwise: 'policy',
  };
}

/** Where an agent's executable is: the pinned install in .harness-cache, else the PATH. */
export function findHarnessBin(harness: HarnessName): string {
  const name = harness === 'claude-code' ? 'claude' : 'codex';
  // this file runs from examples/ (tsx, vitest) or dist/examples/ (npm run): the repository root is one or two up
  const root = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../' : '../', import.meta.url));
  const cached = join(root, '.harness-cache', 'node_modules', '.bin', name);
  return existsSync(cached) ? cached : name;
}

/** Runs an agent headless in its own process group with only PATH inherited; resolves with its exit code. */
function runAgent(bin: string, command: HarnessCommand, folders: { workdir: string; home: string }, timeoutMs: number): Promise<number | null> {
  for (const [path, content] of Object.entries(command.homeFiles)) {
    mkdirSync(dirname(join(folders.home, path)), { recursive: true });
    writeFileSync(join(folders.home, path), content);
  }
  // nothing inherited but PATH: no key, base URL or config of this machine reaches the agent
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: folders.home,
    USER: 'tokentap',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    XDG_CONFIG_HOME: join(folders.home, '.config'),
    XDG_DATA_HOME: join(folders.home, '.local/share'),
    XDG_STATE_HOME: join(folders.home, '.local/state'),
    XDG_CACHE_HOME: join(folders.home, '.cache'),
    ...command.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(bin, command.args, { cwd: folders.workdir, env, stdio: ['ignore', 'ignore', 'ignore'], detached: true });
    const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export interface HarnessRolloutResult {
  harness: HarnessName;
  sessionId: string;
  exitCode: number | null;
  reward: number;
  samples: Sample[];
}

/**
 * Runs each agent once as a rollout of one group and returns what each did, with its training samples.
 *
 * @example const results = await runHarnessRollouts({ harnesses: ['claude-code', 'codex'], print: console.log });
 */
export async function runHarnessRollouts(options: {
  harnesses: HarnessName[];
  print?: (line: string) => void;
  timeoutMs?: number;
  /** the simulated backend's flavour (default vllm); an SGLang one is the gateway's SGLang replica */
  backendFlavour?: 'vllm' | 'sglang';
}): Promise<HarnessRolloutResult[]> {
  const print = options.print ?? ((line: string) => void process.stdout.write(line + '\n'));
  const scratch = mkdtempSync(join(tmpdir(), 'tokentap-harness-rollouts-'));
  const flavour = options.backendFlavour ?? 'vllm';
  const sim = await createSimBackend({ acceptAnyModel: true, script: { replies: [] }, flavour });
  const simUrl = await sim.listen();
  const gateway = createGateway({
    ...(flavour === 'sglang' ? { backends: [{ flavour, url: simUrl }] } : { backendUrl: simUrl }),
    db: join(scratch, 'rollouts.db'),
    port: 0,
    logLevel: 'warn',
    requireSessionKey: true,
  });
  try {
    await gateway.listen();
    const groupId = 'harness-rollouts';
    await gateway.declareGroup(groupId, { expectedSize: options.harnesses.length });
    const runs: Array<Omit<HarnessRolloutResult, 'samples'>> = [];
    for (const harness of options.harnesses) {
      const workdir = mkdtempSync(join(scratch, `${harness}-work-`));
      const home = mkdtempSync(join(scratch, `${harness}-home-`));
      const session = await gateway.createSession({ groupId, task: { prompt: PROMPT }, tags: [harness] });
      sim.setScript(scriptFor(harness, workdir));
      const command =
        harness === 'claude-code'
          ? claudeCodeCommand(session, { prompt: PROMPT, model: MODEL, smallModel: SMALL_MODEL, home })
          : codexCommand(session, { prompt: PROMPT, model: MODEL, home });
      const exitCode = await runAgent(findHarnessBin(harness), command, { workdir, home }, options.timeoutMs ?? 180_000);
      const written = existsSync(join(workdir, FILE)) ? readFileSync(join(workdir, FILE), 'utf8') : null;
      const reward = written === CONTENT ? 1 : 0;
      await session.reward(reward);
      await session.end(exitCode === 0 ? 'completed' : 'failed');
      runs.push({ harness, sessionId: session.id, exitCode, reward });
      print(`${harness}: exit ${exitCode}, ${gateway.store.listCalls(session.id).length} calls recorded in session ${session.id}, reward ${reward}`);
    }
    await gateway.waitForGroup(groupId);
    return runs.map((run) => {
      const samples = [...iterateSamples(gateway.store, { sessionIds: [run.sessionId] })];
      for (const sample of samples) {
        print(
          `  ${run.harness} sample ${sample.chainIndex}: ${sample.tokens.length} tokens, ${sample.callIds.length} calls, reward ${sample.reward}, loss weight ${sample.lossWeight.toFixed(2)}`,
        );
      }
      return { ...run, samples };
    });
  } finally {
    await gateway.close();
    await sim.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runHarnessRollouts({ harnesses: ['claude-code', 'codex'] }).then(
    (results) => {
      if (results.some((result) => result.reward !== 1)) process.exitCode = 1;
    },
    (error: unknown) => {
      process.stderr.write(`${(error as Error).message}\nInstall the agents with: node scripts/install-harnesses.mjs\n`);
      process.exitCode = 1;
    },
  );
}
