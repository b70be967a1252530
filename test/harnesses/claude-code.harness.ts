import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { harnessBin, harnessPin } from './harness-bin.js';
import { runHarness } from './run-harness.js';
import { PROOF_ANSWER, PROOF_CONTENT, PROOF_FILE, PROOF_PROMPT, proofScript, proofStepEntries } from './proof-task.js';
import { startProofRun, type ProofRun } from './start-proof-run.js';
import { expectSessionMatchesSim } from './expect-session-matches-sim.js';
import { HARNESS_BACKEND_LABEL } from './harness-backend.js';

const SESSION = 'claude-code-proof';
const MODEL = 'Qwen/Qwen3-8B';
/** the small fast model's name, so the script can route Claude Code's side requests by `match.model` */
const SMALL_MODEL = 'tokentap-small-fast';
const SIDE_ANSWER = 'Harness proof';

let run: ProofRun;

beforeEach(async () => {
  run = await startProofRun({ replies: [] });
  const file = join(run.workdir.path, PROOF_FILE);
  // tool names and argument shapes as Claude Code 2.1.197 offers them (fixtures/harness-captures/claude-code-2.1.197.jsonl);
  // Write and Read want absolute paths
  run.sim.setScript(
    proofScript(
      {
        write: { name: 'Write', arguments: { file_path: file, content: PROOF_CONTENT } },
        writeResultContains: PROOF_FILE,
        read: { name: 'Read', arguments: { file_path: file } },
        shell: { name: 'Bash', arguments: { command: `tr a-z A-Z < ${PROOF_FILE}`, description: 'Print the notes in capitals' } },
      },
      [{ match: { model: SMALL_MODEL }, times: 'forever', content: SIDE_ANSWER }],
    ),
  );
});

afterEach(async () => {
  await run.close();
});

describe(`Claude Code ${harnessPin('claude-code').version} (claude -p, Anthropic Messages) through the gateway ${HARNESS_BACKEND_LABEL}`, () => {
  it('writes, reads and shouts a file with its own tools, answers, and every call is recorded token-exact', async () => {
    const result = await runHarness({
      bin: harnessBin('claude-code'),
      args: ['-p', PROOF_PROMPT, '--dangerously-skip-permissions'],
      cwd: run.workdir.path,
      home: run.home.path,
      env: {
        // Claude Code appends /v1/messages to its base URL
        ANTHROPIC_BASE_URL: `${run.url}/s/${SESSION}`,
        ANTHROPIC_API_KEY: 'sk-ant-tokentap-fake',
        ANTHROPIC_MODEL: MODEL,
        ANTHROPIC_SMALL_FAST_MODEL: SMALL_MODEL,
        // Claude Code asks for max_tokens 32000; with an 18k-token prompt that is over vLLM's (and the
        // simulator's) 40960-token context, answered with a 400 that Claude Code retries with less every turn
        CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8192',
        // no telemetry, error reports, update checks or other calls that would leave the machine
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        // --dangerously-skip-permissions is refused as root outside a sandbox
        IS_SANDBOX: '1',
      },
    });
    expect(result.exitCode, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).toBe(PROOF_ANSWER);
    expect(readFileSync(run.workdir.file(PROOF_FILE), 'utf8')).toBe(PROOF_CONTENT);

    const pairs = expectSessionMatchesSim(run.gateway.store, SESSION, run.sim.log);
    const steps = proofStepEntries(1);
    const main = pairs.filter(({ record }) => record.scriptEntry !== 0);
    expect(main.map(({ record }) => record.scriptEntry)).toEqual([steps.write, steps.read, steps.shell, steps.answer]);
    expect(main.map(({ record }) => record.toolCalls.map((call) => call.name))).toEqual([['Write'], ['Read'], ['Bash'], []]);
    for (const { call } of pairs) {
      expect(call.frontDoor).toBe('anthropic-messages');
      expect(call.metadata).toMatchObject({ sessionSource: 'path' });
      expect(String(call.metadata['user-agent'])).toContain('claude-cli/2.1.197');
    }
  });
});
