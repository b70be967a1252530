import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { recordFailedCalls, type FailedCallsFixture } from '../helpers/record-failed-calls.js';

/** The built CLI (npm test builds first, as `npx tokentap` runs the built files). */
const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

let fixture: FailedCallsFixture;
beforeAll(async () => {
  fixture = await recordFailedCalls();
}, 60_000);
afterAll(() => fixture?.remove());

// issue 14: `show` gave no error text for failed calls and no way to see a call's messages or response
describe('tokentap show', () => {
  it("lists each failed call's error code and message on its line", () => {
    const agent = runCli(['show', 'agent', '--db', fixture.db]);
    expect(agent.status, agent.stderr).toBe(0);
    expect(agent.stdout).toMatch(
      /\n\s+3\s+\w{8}\s+openai-chat\s+gpt-4o\s+json\s+backend_error\s+none\s.*\sTT_BACKEND_ERROR \(HTTP 404\): The model `gpt-4o` does not exist\.\n/,
    );
    expect(agent.stdout).toMatch(/\n\s+1\s+\w{8}\s+openai-chat\s+Qwen\/Qwen3-8B\s+json\s+ok\s+backend\s.*tool_calls.*\s-\n/);
    const down = runCli(['show', 'down', '--db', fixture.db]);
    expect(down.stdout).toMatch(/backend_error .*TT_BACKEND_UNREACHABLE \(HTTP 502\): Inference backend unreachable \(ECONNREFUSED\)\n/);
  });

  it('--call N prints the request as the harness sent it (long texts folded), the reply it received, tokens and flags', () => {
    const result = runCli(['show', 'agent', '--db', fixture.db, '--call', '2']);
    expect(result.status, result.stderr).toBe(0);
    const text = result.stdout;
    expect(text).toMatch(
      /^call #2 [0-9a-f-]{36} \(session agent\)\n {2}openai-chat \/s\/agent\/v1\/chat\/completions {2}model Qwen\/Qwen3-8B {2}stream\n {2}status ok {2}http 200 {2}finish stop/,
    );
    expect(text).toMatch(/\n {2}tokens backend: prompt \d+, completion \d+\n {2}flags: none\n/);
    expect(text).toContain('request: 4 messages, as the harness sent them; tools: calculator\n[1] system\n    You are a careful assistant.');
    expect(text).toContain(`\n    … [${fixture.systemPrompt.length - 1000} characters folded; --full shows all] …\n`);
    expect(text).toMatch(
      /\n\[2\] user\n {4}What is 17 \+ 25\? Use the calculator\.\n\[3\] assistant\n {4}reasoning:\n {6}I will use the tool\.\n {4}tool call calculator (chatcmpl-tool-\w+):\n {6}\{"a": 17, "b": 25\}\n\[4\] tool\n {4}tool result for \1:\n {6}42\n/,
    );
    expect(text).toMatch(
      /\nresponse as the harness received it: an OpenAI chat\.completion \(finish_reason stop\), streamed: shown as the non-streamed body of the same answer\nassistant\n {4}reasoning:\n {6}The calculator says 42\.\n {4}The answer is 42\.\n$/,
    );
    expect(text).not.toContain(fixture.systemPrompt);
    const full = runCli(['show', 'agent', '--db', fixture.db, '--call', '2', '--full']);
    expect(full.stdout).toContain(`    ${fixture.systemPrompt}\n`);
    expect(full.stdout).not.toContain('folded');
  });

  it('--call shows a failed call with its error and no reply', () => {
    const result = runCli(['show', 'agent', '--db', fixture.db, '--call', '3']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('  status backend_error  http 404  finish -');
    expect(result.stdout).toContain('\n  error: TT_BACKEND_ERROR (HTTP 404): The model `gpt-4o` does not exist.\n');
    expect(result.stdout).toContain('request: 1 message, as the harness sent it\n[1] user\n    hello\n');
    expect(result.stdout).toContain('response: none (no reply was recorded)');
  });

  it('--call takes the start of a call id, and reads Anthropic blocks (system, tool_use, tool_result)', () => {
    const listing = runCli(['show', 'claude', '--db', fixture.db]).stdout;
    const prefix = /\n\s+1\s+(\w{8})\s+anthropic-messages/.exec(listing)?.[1];
    expect(prefix).toBeDefined();
    const result = runCli(['show', 'claude', '--db', fixture.db, '--call', prefix!]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      '[1] system\n    You add numbers.\n[2] user\n    What is 17 + 25? Use the calculator.\n' +
        '[3] assistant\n    tool call calculator toolu_01:\n      {"a":17,"b":25}\n[4] user\n    tool result for toolu_01:\n      42\n',
    );
    expect(result.stdout).toMatch(
      /\nresponse as the harness received it: an Anthropic Message msg_\S+ \(stop_reason end_turn; content blocks: thinking, text\)\nassistant\n {4}reasoning:\n {6}The calculator says 42\.\n {4}The answer is 42\.\n$/,
    );
  });

  it('--call reads Responses API input items (instructions, function_call, function_call_output)', () => {
    const result = runCli(['show', 'codex', '--db', fixture.db, '--call', '1']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('  openai-responses /s/codex/v1/responses');
    expect(result.stdout).toContain(
      'request: 4 messages, as the harness sent them; tools: calculator\n[1] system\n    You add numbers.\n[2] user\n    What is 17 + 25? Use the calculator.\n' +
        '[3] assistant\n    tool call calculator call_01:\n      {"a":17,"b":25}\n[4] tool\n    tool result for call_01:\n      42\n',
    );
    expect(result.stdout).toMatch(
      /\nresponse as the harness received it: a Responses object resp_\w+ \(status completed; output items: reasoning, message\)\nassistant\n {4}reasoning:\n {6}The calculator says 42\.\n {4}The answer is 42\.\n {2}not reproduced: completed_at: [^\n]+\n$/,
    );
  });

  it('--call --json gives the call, its readable messages and reply, and the bodies as recorded', () => {
    const result = runCli(['show', 'agent', '--db', fixture.db, '--call', '2', '--json']);
    expect(result.status, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as Record<string, any>;
    expect(json).toMatchObject({ seq: 2, status: 'ok', error: null, flags: [], promptTokenIds: expect.any(Array) });
    expect(json.request.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(json.request.messages[0].parts[0].text).toBe(fixture.systemPrompt);
    expect(json.request.messages[2].parts).toMatchObject([
      { kind: 'reasoning' },
      { kind: 'tool_call', name: 'calculator', text: '{"a": 17, "b": 25}' },
    ]);
    expect(json.request.tools).toEqual(['calculator']);
    expect(json.request.body.messages).toHaveLength(4);
    expect(json.response).toMatchObject({
      assembledFromStream: true,
      message: { role: 'assistant', parts: [{ kind: 'reasoning' }, { kind: 'text', text: '\n\nThe answer is 42.' }] },
    });
    // the stored body is tokentap's assembly of the stream (usage included); the harness asked no usage and got none
    expect(json.response.body).toMatchObject({ assembled_from_stream: true, usage: expect.any(Object) });
    expect(json.response).toMatchObject({ harnessProtocol: 'openai-chat', harnessNotReproduced: [] });
    expect(json.response.harnessBody).not.toHaveProperty('assembled_from_stream');
    expect(json.response.harnessBody).not.toHaveProperty('usage');
    expect(json.response.harnessBody.choices[0]).not.toHaveProperty('token_ids');
    expect(json.response.harnessBody.choices[0].message.content).toBe('\n\nThe answer is 42.');
    const failed = JSON.parse(runCli(['show', 'agent', '--db', fixture.db, '--call', '3', '--json']).stdout) as Record<string, any>;
    expect(failed).toMatchObject({
      error: { httpStatus: 404, code: 'TT_BACKEND_ERROR', message: 'The model `gpt-4o` does not exist.' },
      response: { message: null, body: null },
    });
  });

  it('refuses a call the session does not have, and --full without --call (exit 2, one line)', () => {
    const missing = runCli(['show', 'agent', '--db', fixture.db, '--call', '9']);
    expect(missing).toMatchObject({
      status: 2,
      stdout: '',
      stderr: 'tokentap: no call "9" in session agent (its calls are #1 to #3; see tokentap show agent)\n',
    });
    const full = runCli(['show', 'agent', '--db', fixture.db, '--full']);
    expect(full).toMatchObject({ status: 2, stderr: 'tokentap: --full goes with --call N\n' });
  });
});
