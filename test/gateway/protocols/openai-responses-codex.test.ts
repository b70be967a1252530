import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { SimScript } from '../../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../../helpers/expect-calls-match-sim.js';
import { doneItems, postResponses, readResponsesEvents, type ResponsesEvent } from './openai-responses-events.js';

interface CapturedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown> & { input: Array<Record<string, unknown>>; tools: Array<Record<string, unknown>> };
}

/** The two requests Codex 0.171.0 sent for "Run the proof command" (test/fixtures/harness-captures/README.md). */
const CAPTURE: CapturedRequest[] = readFileSync(new URL('../../fixtures/harness-captures/codex-0.171.0.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as CapturedRequest);

const PROOF_COMMAND = 'echo tokentap-ok > proof.txt && cat proof.txt';

/** What the capture's scripted server answered: turn 1 the shell tool call, turn 2 the final text. */
const CODEX_SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: 'tokentap-ok' }, times: 'forever', content: 'DONE tokentap-ok' },
    {
      match: { lastUserContains: 'Run the proof command' },
      times: 'forever',
      reasoning: 'I will run it.',
      toolCalls: [{ name: 'exec_command', arguments: { cmd: PROOF_COMMAND } }],
    },
  ],
  otherwise: 'error',
};

/** Replays a captured request with Codex's own headers (its key and transport headers left out). */
async function replay(captured: CapturedRequest): Promise<ResponsesEvent[]> {
  const headers = Object.fromEntries(
    Object.entries(captured.headers).filter(([name]) => !['authorization', 'host', 'content-length', 'accept-encoding'].includes(name)),
  );
  const answer = await postResponses(setup.url + captured.url, captured.body, headers);
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^text\/event-stream/);
  return readResponsesEvents(answer.text);
}

let setup: GatewayWithSim;
let turns: ResponsesEvent[][];

beforeAll(async () => {
  setup = await startGatewayWithSim({ script: CODEX_SCRIPT });
  turns = [];
  for (const captured of CAPTURE) turns.push(await replay(captured));
});

afterAll(async () => {
  await setup.close();
});

function backendRequest(
  index: number,
): Record<string, unknown> & { messages: Array<Record<string, unknown>>; tools: Array<{ function: { name: string } }> } {
  const call = setup.gateway.store.listCalls('cx')[index];
  return setup.gateway.store.getCallBodies(call?.id ?? '')?.backendRequestBody as ReturnType<typeof backendRequest>;
}

describe('the real Codex 0.171.0 requests replayed through /v1/responses', () => {
  it('are two requests of one session, as captured', () => {
    expect(CAPTURE.map((captured) => [captured.method, captured.url, captured.body.stream])).toEqual([
      ['POST', '/s/cx/v1/responses', true],
      ['POST', '/s/cx/v1/responses', true],
    ]);
  });

  it('stream a valid event sequence ending in response.completed with usage (what Codex requires)', () => {
    turns.forEach((events, index) => {
      expect(events[0]?.type).toBe('response.created');
      const completed = events.at(-1) as ResponsesEvent & { response: { id: string; usage: Record<string, unknown>; status: string } };
      expect(completed.type).toBe('response.completed');
      expect(completed.response.id).toBe((events[0] as unknown as { response: { id: string } }).response.id);
      expect(completed.response.usage).toMatchObject({
        input_tokens: setup.sim.log[index]?.promptTokenIds.length,
        output_tokens: setup.sim.log[index]?.completionTokenIds.length,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      });
    });
  });

  it('give Codex its shell call in response.output_item.done, then the final message', () => {
    const call = doneItems(turns[0] ?? []).find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'exec_command', status: 'completed' });
    expect(JSON.parse(String(call?.arguments))).toEqual({ cmd: PROOF_COMMAND });
    expect(String(call?.call_id)).toMatch(/\S/);
    expect(doneItems(turns[1] ?? []).filter((item) => item.type === 'message')).toEqual([
      expect.objectContaining({ role: 'assistant', content: [expect.objectContaining({ type: 'output_text', text: 'DONE tokentap-ok' })] }),
    ]);
  });

  it('merge the developer messages into one leading system message', () => {
    const messages = backendRequest(0).messages;
    expect(messages.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    // parts of one message join with "\n" (as vLLM joins text parts), messages with a blank line
    const developerTexts = CAPTURE[0]?.body.input
      .filter((item) => item.role === 'developer')
      .map((item) => (item.content as Array<{ text: string }>).map((part) => part.text).join('\n'));
    expect(developerTexts).toHaveLength(2);
    expect(messages[0]?.content).toBe(developerTexts?.join('\n\n'));
  });

  it('drop the hosted web_search tool, flatten the namespace tools and record what was left out', () => {
    const names = backendRequest(0).tools.map((tool) => tool.function.name);
    const namespace = CAPTURE[0]?.body.tools.find((tool) => tool.type === 'namespace') as { name: string; tools: Array<{ name: string }> };
    const plain = CAPTURE[0]?.body.tools.filter((tool) => tool.type === 'function').map((tool) => tool.name);
    expect(names).toEqual([
      ...(plain ?? []).slice(0, 4),
      ...namespace.tools.map((tool) => `multi_agent_v1__${tool.name}`),
      ...(plain ?? []).slice(4),
    ]);
    expect(names.some((name) => name.includes('web_search'))).toBe(false);
    expect(backendRequest(0)).toMatchObject({
      tool_choice: 'auto',
      parallel_tool_calls: true,
      stream: true,
      return_token_ids: true,
      logprobs: true,
      stream_options: { include_usage: true },
    });
    const metadata = setup.gateway.store.listCalls('cx')[0]?.metadata;
    expect(metadata).toMatchObject({
      sessionSource: 'path',
      'user-agent': expect.stringMatching(/^codex_exec\/0\.171\.0/),
      responses: { droppedTools: ['web_search'], droppedItems: [] },
    });
    expect((metadata?.responses as { notForwarded: string[] }).notForwarded).toEqual(
      expect.arrayContaining(['store', 'include', 'prompt_cache_key', 'client_metadata']),
    );
    for (const key of ['store', 'include', 'prompt_cache_key', 'client_metadata', 'reasoning']) expect(backendRequest(0)).not.toHaveProperty(key);
  });

  it('turn the captured function_call and its output into an assistant tool call and a tool message', () => {
    const messages = backendRequest(1).messages;
    expect(messages.slice(3)).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'exec_command', arguments: JSON.stringify({ cmd: PROOF_COMMAND }) } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: expect.stringContaining('tokentap-ok') },
    ]);
  });

  it('are recorded as openai-responses calls equal to the simulator log', () => {
    const calls = setup.gateway.store.listCalls('cx');
    expect(calls.map((call) => [call.frontDoor, call.status, call.stream, call.requestedModel])).toEqual([
      ['openai-responses', 'ok', true, 'Qwen/Qwen3-8B'],
      ['openai-responses', 'ok', true, 'Qwen/Qwen3-8B'],
    ]);
    expectCallsMatchSim(calls, setup.sim.log);
  });
});
