import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { SimScript } from '../../sim/index.js';
import { startGatewayWithSim } from '../helpers/gateway-with-sim.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SCRIPT: SimScript = {
  replies: [
    {
      match: { lastUserContains: '17 + 25' },
      times: 'forever',
      reasoning: 'I will use the tool.',
      content: 'Let me add them.',
      toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 25 } }],
    },
  ],
  otherwise: 'error',
};
const SCHEMA = { type: 'object' as const, properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] };
const QUESTION = 'What is 17 + 25? Use the calculator.';

const temp = makeTempDir('tokentap-harness-body-');
const db = temp.file('tokentap.db');
/** what each real client received, by session */
const received: Record<string, Record<string, unknown>> = {};

beforeAll(async () => {
  const setup = await startGatewayWithSim({ script: SCRIPT }, { db });
  try {
    const anthropic = (session: string): Anthropic =>
      new Anthropic({ baseURL: `${setup.url}/s/${session}`, apiKey: 'sk-ant-harness', maxRetries: 0 });
    const claude = {
      model: 'claude-test-model',
      max_tokens: 500,
      system: 'You add numbers.',
      tools: [{ name: 'calculator', description: 'Adds two integers.', input_schema: SCHEMA }],
      thinking: { type: 'enabled' as const, budget_tokens: 256 },
      messages: [{ role: 'user' as const, content: QUESTION }],
    };
    received['claude-json'] = { ...(await anthropic('claude-json').messages.create(claude)) };
    // the Message the SDK assembles from the stream's events; `parsed_output` is the SDK's own (structured-output helper)
    const { parsed_output: _parsed, ...streamed } = await anthropic('claude-stream').messages.stream(claude).finalMessage();
    received['claude-stream'] = streamed;
    const codex = {
      model: 'Qwen/Qwen3-8B',
      instructions: 'You add numbers.',
      tools: [{ type: 'function' as const, name: 'calculator', description: 'Adds two integers.', parameters: SCHEMA, strict: false }],
      input: QUESTION,
    };
    // the SDK adds `output_text` (a convenience, not on the wire): the body as sent is read with fetch
    const json = await fetch(`${setup.url}/s/codex-json/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(codex),
    });
    received['codex-json'] = (await json.json()) as Record<string, unknown>;
    const openai = new OpenAI({ baseURL: setup.openaiBase('codex-stream'), apiKey: 'sk-harness', maxRetries: 0 });
    for await (const event of await openai.responses.create({ ...codex, stream: true })) {
      // the whole response object a streaming harness keeps (Codex reads response.completed)
      if (event.type === 'response.completed') received['codex-stream'] = { ...event.response } as Record<string, unknown>;
    }
  } finally {
    await setup.gateway.close();
    await setup.sim.close();
  }
}, 60_000);
afterAll(() => temp.remove());

function showJson(session: string): Record<string, any> {
  const result = runCli(['show', session, '--db', db, '--call', '1', '--json']);
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, any>;
}

// issue 14: `show --call` printed an Anthropic or Responses call's reply in chat form, and --json held only the
// backend's answer, not what the harness received
describe('tokentap show --call: the response in the harness protocol', () => {
  it.each(['claude-json', 'claude-stream'])('%s: prints the Anthropic content blocks, --json carries the Message the SDK received', (session) => {
    const text = runCli(['show', session, '--db', db, '--call', '1']).stdout;
    expect(text).toMatch(
      /\nresponse as the harness received it: an Anthropic Message msg_\S+ \(stop_reason tool_use; content blocks: thinking, text, tool_use\)/,
    );
    expect(text).toMatch(
      /\nassistant\n {4}reasoning:\n {6}I will use the tool\.\n {4}Let me add them\.\n {4}tool call calculator toolu_\S+:\n {6}\{"a":17,"b":25\}\n/,
    );
    expect(text.includes('streamed: shown as the non-streamed body of the same answer')).toBe(session === 'claude-stream');
    const json = showJson(session);
    expect(json.response.harnessProtocol).toBe('anthropic-messages');
    expect(json.response.harnessNotReproduced).toEqual([]);
    expect(json.response.harnessBody).toEqual(received[session]);
    expect(json.response.body.object).toMatch(/^chat\.completion/);
  });

  it.each(['codex-json', 'codex-stream'])('%s: prints the Responses output items, --json carries the response object received', (session) => {
    const text = runCli(['show', session, '--db', db, '--call', '1']).stdout;
    expect(text).toMatch(
      /\nresponse as the harness received it: a Responses object resp_\w+ \(status completed; output items: reasoning, message, function_call\)/,
    );
    expect(text).toMatch(
      /\nassistant\n {4}reasoning:\n {6}I will use the tool\.\n {4}Let me add them\.\n {4}tool call calculator \S+:\n {6}\{"a": ?17, ?"b": ?25\}\n/,
    );
    expect(text).toContain('\n  not reproduced: completed_at: the time the answer went out is not stored; this is when the call ended\n');
    const json = showJson(session);
    const harness = json.response.harnessBody as Record<string, unknown>;
    const client = received[session]!;
    expect(json.response.harnessNotReproduced).toEqual(['completed_at: the time the answer went out is not stored; this is when the call ended']);
    // the answer went out after the call ended, within the same second or the next
    expect(Number(client.completed_at) - Number(harness.completed_at)).toBeGreaterThanOrEqual(0);
    expect(Number(client.completed_at) - Number(harness.completed_at)).toBeLessThanOrEqual(1);
    expect({ ...harness, completed_at: 0 }).toEqual({ ...client, completed_at: 0 });
  });
});
