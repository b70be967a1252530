import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { harnessBin, harnessPin } from './harness-bin.js';
import { runHarness } from './run-harness.js';
import { PROOF_ANSWER, PROOF_CONTENT, PROOF_FILE, PROOF_PROMPT, proofScript, proofStepEntries } from './proof-task.js';
import { startProofRun, type ProofRun } from './start-proof-run.js';
import { expectSessionMatchesSim } from './expect-session-matches-sim.js';
import { HARNESS_BACKEND_LABEL } from './harness-backend.js';

const SESSION = 'qwen-code-proof';
const MODEL = 'Qwen/Qwen3-8B';

let run: ProofRun;

beforeEach(async () => {
  // tool names and argument shapes as Qwen Code 0.15.10 offers them (fixtures/harness-captures/qwen-code-0.15.10.jsonl);
  // its file tools want absolute paths, so the script is built once the work folder exists
  run = await startProofRun({ replies: [] });
  const file = join(run.workdir.path, PROOF_FILE);
  run.sim.setScript(
    proofScript({
      write: { name: 'write_file', arguments: { file_path: file, content: PROOF_CONTENT } },
      writeResultContains: PROOF_FILE,
      read: { name: 'read_file', arguments: { file_path: file } },
      shell: { name: 'run_shell_command', arguments: { command: `tr a-z A-Z < ${PROOF_FILE}`, description: 'Print the notes in capitals' } },
    }),
  );
  // no usage statistics, telemetry or update checks (they would leave the machine)
  mkdirSync(join(run.home.path, '.qwen'));
  writeFileSync(
    join(run.home.path, '.qwen', 'settings.json'),
    JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false }, general: { enableAutoUpdate: false } }),
  );
});

afterEach(async () => {
  await run.close();
});

describe(`Qwen Code ${harnessPin('qwen-code').version} (qwen -p, OpenAI Chat Completions) through the gateway ${HARNESS_BACKEND_LABEL}`, () => {
  it('writes, reads and shouts a file with its own tools, answers, and every call is recorded token-exact', async () => {
    const result = await runHarness({
      bin: harnessBin('qwen-code'),
      args: ['-p', PROOF_PROMPT, '--yolo'],
      cwd: run.workdir.path,
      home: run.home.path,
      env: {
        OPENAI_BASE_URL: run.openaiBase(SESSION),
        OPENAI_API_KEY: 'sk-tokentap-fake',
        OPENAI_MODEL: MODEL,
        QWEN_TELEMETRY_ENABLED: 'false',
        // it would open a connection to the base URL ahead of the first call
        QWEN_CODE_DISABLE_PRECONNECT: '1',
      },
    });
    expect(result.exitCode, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).toBe(PROOF_ANSWER);
    expect(readFileSync(run.workdir.file(PROOF_FILE), 'utf8')).toBe(PROOF_CONTENT);

    const pairs = expectSessionMatchesSim(run.gateway.store, SESSION, run.sim.log);
    const steps = proofStepEntries(0);
    expect(pairs.map(({ record }) => record.scriptEntry)).toEqual([steps.write, steps.read, steps.shell, steps.answer]);
    expect(pairs.map(({ record }) => record.toolCalls.map((call) => call.name))).toEqual([['write_file'], ['read_file'], ['run_shell_command'], []]);
    const first = pairs[0]?.call;
    expect(first?.frontDoor).toBe('openai-chat');
    expect(first?.stream).toBe(true);
    expect(first?.metadata).toMatchObject({ sessionSource: 'path' });
    expect(String(first?.metadata['user-agent'])).toContain('QwenCode/0.15.10');
  });
});
