import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { harnessBin, harnessPin } from './harness-bin.js';
import { runHarness } from './run-harness.js';
import { PROOF_ANSWER, PROOF_CONTENT, PROOF_FILE, PROOF_PROMPT, proofScript, proofStepEntries } from './proof-task.js';
import { startProofRun, type ProofRun } from './start-proof-run.js';
import { expectSessionMatchesSim } from './expect-session-matches-sim.js';
import { HARNESS_BACKEND_LABEL } from './harness-backend.js';

const SESSION = 'pi-proof';
const MODEL = 'Qwen/Qwen3-8B';
const PROVIDER = 'tokentap';

let run: ProofRun;

beforeEach(async () => {
  // tool names and argument shapes as pi 0.73.1 offers them (fixtures/harness-captures/pi-0.73.1.jsonl)
  run = await startProofRun(
    proofScript({
      write: { name: 'write', arguments: { path: PROOF_FILE, content: PROOF_CONTENT } },
      writeResultContains: PROOF_FILE,
      read: { name: 'read', arguments: { path: PROOF_FILE } },
      shell: { name: 'bash', arguments: { command: `tr a-z A-Z < ${PROOF_FILE}` } },
    }),
  );
  // pi reads custom providers from ~/.pi/agent/models.json; vLLM takes the system prompt as `system`, not `developer`
  mkdirSync(join(run.home.path, '.pi', 'agent'), { recursive: true });
  writeFileSync(
    join(run.home.path, '.pi', 'agent', 'models.json'),
    JSON.stringify({
      providers: {
        [PROVIDER]: {
          baseUrl: run.openaiBase(SESSION),
          api: 'openai-completions',
          apiKey: 'sk-tokentap-fake',
          compat: { supportsDeveloperRole: false },
          models: [{ id: MODEL, reasoning: true }],
        },
      },
    }),
  );
});

afterEach(async () => {
  await run.close();
});

describe(`pi ${harnessPin('pi').version} (pi -p, OpenAI Chat Completions) through the gateway ${HARNESS_BACKEND_LABEL}`, () => {
  it('writes, reads and shouts a file with its own tools, answers, and every call is recorded token-exact', async () => {
    const result = await runHarness({
      bin: harnessBin('pi'),
      args: ['-p', PROOF_PROMPT, '--provider', PROVIDER, '--model', MODEL, '--no-session'],
      cwd: run.workdir.path,
      home: run.home.path,
      // no version check, install report or tool downloads (they would leave the machine)
      env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
    });
    expect(result.exitCode, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).toBe(PROOF_ANSWER);
    expect(readFileSync(run.workdir.file(PROOF_FILE), 'utf8')).toBe(PROOF_CONTENT);

    const pairs = expectSessionMatchesSim(run.gateway.store, SESSION, run.sim.log);
    const steps = proofStepEntries(0);
    expect(pairs.map(({ record }) => record.scriptEntry)).toEqual([steps.write, steps.read, steps.shell, steps.answer]);
    expect(pairs.map(({ record }) => record.toolCalls.map((call) => call.name))).toEqual([['write'], ['read'], ['bash'], []]);
    const first = pairs[0]?.call;
    expect(first?.frontDoor).toBe('openai-chat');
    expect(first?.stream).toBe(true);
    expect(first?.metadata).toMatchObject({ sessionSource: 'path' });
    // pi asks for thinking the OpenAI way; the request reaches the backend with it
    expect(run.gateway.store.getCallBodies(first?.id ?? '')?.requestBody).toMatchObject({ model: MODEL, reasoning_effort: 'medium' });
  });
});
