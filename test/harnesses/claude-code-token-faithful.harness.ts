import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import type { CallRow } from '../../store/types.js';
import { expectSessionMatchesSim } from './expect-session-matches-sim.js';
import { harnessBin, harnessPin } from './harness-bin.js';
import { PROOF_ANSWER, PROOF_CONTENT, PROOF_FILE, PROOF_PROMPT, PROOF_SHOUTED } from './proof-task.js';
import { runHarness } from './run-harness.js';
import { HARNESS_BACKEND, HARNESS_BACKEND_LABEL } from './harness-backend.js';
import { startTokenFaithfulRun, type TokenFaithfulRun, type TokenFaithfulScript } from './start-token-faithful-run.js';

const SESSION = 'claude-code-token-faithful';
const MODEL = 'Qwen/Qwen3-8B';
const SMALL_MODEL = 'tokentap-small-fast';
const SIDE_ANSWER = 'Harness proof';
const SUBAGENT_REPORT = `The notes in capitals: ${PROOF_SHOUTED}`;

/**
 * The main model's replies in the order Claude Code asks for them: the main agent writes and reads the file, hands
 * the shouting to a sub-agent (its own system prompt, its own conversation), which runs Bash and reports, and the
 * main agent answers. Side requests go to the small model.
 */
function script(workdir: string): TokenFaithfulScript {
  const file = join(workdir, PROOF_FILE);
  const think = (reasoning: string): string => `<think>\n${reasoning}\n</think>\n\n`;
  const call = (name: string, args: Record<string, unknown>): string =>
    `<tool_call>\n${JSON.stringify({ name, arguments: args }, null, 0).replace(/":/g, '": ').replace(/,"/g, ', "')}\n</tool_call>`;
  const main = [
    `${think(`I will write ${PROOF_FILE} first.`)}${call('Write', { file_path: file, content: PROOF_CONTENT })}`,
    `${think('Now read it back.')}${call('Read', { file_path: file })}`,
    `${think('A sub-agent can shout it.')}${call('Agent', { description: 'Shout the notes', prompt: `Print ${PROOF_FILE} in capitals with a shell command and report the output.`, subagent_type: 'general-purpose' })}`,
    `${think('Run the command.')}${call('Bash', { command: `tr a-z A-Z < ${PROOF_FILE}`, description: 'Print the notes in capitals' })}`,
    `${think('Report it.')}${SUBAGENT_REPORT}`,
    `${think('All done.')}${PROOF_ANSWER}`,
  ];
  return { mainModel: MODEL, main, smallModel: SMALL_MODEL, side: SIDE_ANSWER };
}

let run: TokenFaithfulRun;

beforeEach(async () => {
  run = await startTokenFaithfulRun(script);
});

afterEach(async () => {
  await run.close();
});

/** The chains the gateway built: each call joins the chain of the call it extended, or opens one. */
function chainsOf(calls: CallRow[]): CallRow[][] {
  const chainOf = new Map<string, CallRow[]>();
  const chains: CallRow[][] = [];
  for (const call of calls) {
    const faithful = call.metadata.tokenFaithful as { mode: string; extends?: string };
    const chain = faithful.mode === 'extend' ? chainOf.get(faithful.extends!) : undefined;
    if (chain === undefined) chains.push([call]);
    else chain.push(call);
    chainOf.set(call.id, chain ?? chains.at(-1)!);
  }
  return chains;
}

describe(`Claude Code ${harnessPin('claude-code').version} through the gateway in token-faithful mode ${HARNESS_BACKEND_LABEL}`, () => {
  it('runs its tools and a sub-agent; the main agent, the sub-agent and each side request are exact prompt chains', async () => {
    const result = await runHarness({
      bin: harnessBin('claude-code'),
      args: ['-p', PROOF_PROMPT, '--dangerously-skip-permissions'],
      cwd: run.workdir.path,
      home: run.home.path,
      env: {
        ANTHROPIC_BASE_URL: `${run.url}/s/${SESSION}`,
        ANTHROPIC_API_KEY: 'sk-ant-tokentap-fake',
        ANTHROPIC_MODEL: MODEL,
        ANTHROPIC_SMALL_FAST_MODEL: SMALL_MODEL,
        CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8192',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        IS_SANDBOX: '1',
      },
    });
    expect(result.exitCode, result.describe()).toBe(0);
    expect(result.stdout.trim(), result.describe()).toBe(PROOF_ANSWER);
    expect(readFileSync(run.workdir.file(PROOF_FILE), 'utf8')).toBe(PROOF_CONTENT);

    const pairs = expectSessionMatchesSim(run.gateway.store, SESSION, run.log());
    const calls = pairs.map(({ call }) => call);
    const entryOf = new Map(pairs.map(({ call, record }) => [call.id, run.stepOf(record)]));
    const chains = chainsOf(calls).map((chain) => chain.map((call) => entryOf.get(call.id)));
    // main agent: write, read, Agent, answer; the sub-agent: Bash, report; every side request alone
    expect(chains.filter((chain) => chain[0] !== 0)).toEqual([
      [1, 2, 3, 6],
      [4, 5],
    ]);
    expect(chains.filter((chain) => chain[0] === 0).every((chain) => chain.length === 1)).toBe(true);
    for (const chain of chainsOf(calls)) {
      for (let index = 1; index < chain.length; index++) {
        const earlier = chain[index - 1]!;
        const expected = [...earlier.promptTokenIds!, ...earlier.completionTokenIds!];
        expect(Array.from(chain[index]!.promptTokenIds!.subarray(0, expected.length))).toEqual(expected);
      }
    }
    // one training sample per linear trajectory, each verified against the raw call rows
    const samples = reconstructSession(run.gateway.store, SESSION, { strategy: 'merge' });
    const sampleCalls = samples.map((sample) => sample.callIds.map((id) => entryOf.get(id)));
    expect(sampleCalls).toContainEqual([1, 2, 3, 6]);
    expect(sampleCalls).toContainEqual([4, 5]);
    expect(samples).toHaveLength(chains.length);
    for (const sample of samples) expect(verifySample(sample, calls)).toEqual({ ok: true });
    for (const call of calls) {
      expect(call.frontDoor).toBe('anthropic-messages');
      // the prompt ids went up as they were recorded: vLLM's /v1/completions `prompt`, SGLang's /generate `input_ids`
      const promptField = HARNESS_BACKEND === 'sglang' ? 'input_ids' : 'prompt';
      expect(run.gateway.store.getCallBodies(call.id)?.backendRequestBody).toMatchObject({ [promptField]: Array.from(call.promptTokenIds!) });
    }
  });
});
