import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { harnessBin, harnessPin } from './harness-bin.js';
import { runHarness } from './run-harness.js';
import { PROOF_ANSWER, PROOF_CONTENT, PROOF_FILE, PROOF_PROMPT, proofScript, proofStepEntries } from './proof-task.js';
import { startProofRun, type ProofRun } from './start-proof-run.js';
import { expectSessionMatchesSim } from './expect-session-matches-sim.js';
import { HARNESS_BACKEND_LABEL } from './harness-backend.js';

const SESSION = 'codex-proof';
const MODEL = 'Qwen/Qwen3-8B';
const WROTE = 'wrote-notes';
const CODEX_CONFIG = [
  'check_for_update_on_startup = false',
  '',
  '[analytics]',
  'enabled = false',
  '',
  '[feedback]',
  'enabled = false',
  '',
  '[features]',
  'plugins = false',
  '',
].join('\n');

let run: ProofRun;

beforeEach(async () => {
  // Codex 0.171.0 offers a model it does not know only `exec_command` ({cmd}) to act with, no apply_patch
  // (fixtures/harness-captures/codex-0.171.0.jsonl), so all three steps go through its shell tool
  run = await startProofRun(
    proofScript({
      write: { name: 'exec_command', arguments: { cmd: `printf '%s' '${PROOF_CONTENT}' > ${PROOF_FILE} && echo ${WROTE}` } },
      writeResultContains: WROTE,
      read: { name: 'exec_command', arguments: { cmd: `cat ${PROOF_FILE}` } },
      shell: { name: 'exec_command', arguments: { cmd: `tr a-z A-Z < ${PROOF_FILE}` } },
    }),
  );
  // no update checks, analytics, feedback uploads or plugin catalog syncs (github.com, chatgpt.com): they would
  // leave the machine
  mkdirSync(join(run.home.path, '.codex'));
  writeFileSync(join(run.home.path, '.codex', 'config.toml'), CODEX_CONFIG);
});

afterEach(async () => {
  await run.close();
});

describe(`Codex ${harnessPin('codex').version} (codex exec, OpenAI Responses) through the gateway ${HARNESS_BACKEND_LABEL}`, () => {
  it('writes, reads and shouts a file with its shell tool, answers, and every call is recorded token-exact', async () => {
    const provider = `model_providers.tokentap={name="tokentap",base_url="${run.openaiBase(SESSION)}",env_key="TOKENTAP_FAKE_KEY",wire_api="responses"}`;
    const result = await runHarness({
      bin: harnessBin('codex'),
      args: [
        'exec',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        '-c',
        'model_provider=tokentap',
        '-c',
        provider,
        '-m',
        MODEL,
        PROOF_PROMPT,
      ],
      cwd: run.workdir.path,
      home: run.home.path,
      env: { TOKENTAP_FAKE_KEY: 'sk-tokentap-fake', CODEX_HOME: join(run.home.path, '.codex') },
    });
    expect(result.exitCode, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).toBe(PROOF_ANSWER);
    expect(readFileSync(run.workdir.file(PROOF_FILE), 'utf8')).toBe(PROOF_CONTENT);

    const pairs = expectSessionMatchesSim(run.gateway.store, SESSION, run.sim.log);
    const steps = proofStepEntries(0);
    expect(pairs.map(({ record }) => record.scriptEntry)).toEqual([steps.write, steps.read, steps.shell, steps.answer]);
    expect(pairs.map(({ record }) => record.toolCalls.map((call) => call.name))).toEqual([['exec_command'], ['exec_command'], ['exec_command'], []]);
    for (const { call } of pairs) {
      expect(call.frontDoor).toBe('openai-responses');
      expect(call.metadata).toMatchObject({ sessionSource: 'path' });
    }
  });
});
