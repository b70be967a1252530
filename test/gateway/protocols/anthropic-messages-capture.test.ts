import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SseDecoder } from '../../../core/sse/sse-decoder.js';
import type { SimScript } from '../../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../../helpers/expect-calls-match-sim.js';

/**
 * The real Claude Code 2.1.197 traffic (copied from shared/fixtures/harness-captures, see its README): a HEAD
 * probe of the base URL, then two streamed `POST /s/cc/v1/messages?beta=true` (turn 1 asks, turn 2 sends the
 * Bash result back). Each is replayed with its headers and body as sent.
 */
interface CapturedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
}

const CAPTURE: CapturedRequest[] = readFileSync(new URL('../../fixtures/harness-captures/claude-code-2.1.197.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as CapturedRequest);

const SERVED = 'served-qwen';
const SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: 'tokentap-ok' }, times: 'forever', reasoning: 'The proof file exists.', content: 'DONE tokentap-ok' },
    {
      match: { lastUserContains: 'Run the proof command' },
      times: 'forever',
      reasoning: 'Run it with Bash.',
      toolCalls: [{ name: 'Bash', arguments: { command: 'echo tokentap-ok > proof.txt && cat proof.txt', description: 'proof' } }],
    },
  ],
  otherwise: 'error',
};

let setup: GatewayWithSim;
beforeEach(async () => {
  // the simulator only serves SERVED: the replay passes only if `--model` replaced the captured model name;
  // Claude Code's max_tokens 32000 needs a window larger than the default 40960 beside its ~20k-token prompt
  setup = await startGatewayWithSim({ script: SCRIPT, modelName: SERVED, acceptAnyModel: false, maxModelLen: 131072 }, { model: SERVED });
});
afterEach(async () => {
  await setup.close();
});

function replay(request: CapturedRequest, body: Record<string, unknown> | null = request.body): Promise<Response> {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection', 'accept-encoding'].includes(name)),
  );
  return fetch(`${setup.url}${request.url}`, { method: request.method, headers, body: body === null ? null : JSON.stringify(body) });
}

type Event = { event: string | undefined; data: Record<string, unknown> };

/** Reads a stream and checks Anthropic's grammar: named events, data.type = name, start/stop pairs with contiguous indices. */
async function readAnthropicStream(response: Response): Promise<Event[]> {
  expect(response.status).toBe(200);
  const decoder = new SseDecoder();
  const events = [...decoder.push(new Uint8Array(await response.arrayBuffer())), ...decoder.flush()].map((event) => ({
    event: event.event,
    data: JSON.parse(event.data) as Record<string, unknown>,
  }));
  for (const { event, data } of events) expect(data.type).toBe(event);
  const names = events.map((entry) => entry.event);
  expect(names.slice(0, 2)).toEqual(['message_start', 'ping']);
  expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
  const starts = events.filter((entry) => entry.event === 'content_block_start').map((entry) => entry.data.index);
  const stops = events.filter((entry) => entry.event === 'content_block_stop').map((entry) => entry.data.index);
  expect(starts).toEqual(starts.map((_, index) => index));
  expect(stops).toEqual(starts);
  return events;
}

function backendBodyOf(index: number): Record<string, unknown> & { messages: Array<Record<string, unknown>>; tools?: unknown[] } {
  const call = setup.gateway.store.listCalls('cc')[index];
  return setup.gateway.store.getCallBodies(call?.id ?? '')?.backendRequestBody as Record<string, unknown> & {
    messages: Array<Record<string, unknown>>;
  };
}

describe('Claude Code 2.1.197 replayed through the Anthropic front door', () => {
  it('answers the HEAD probe of the base URL (and of the root) with 200', async () => {
    expect((await replay(CAPTURE[0]!)).status).toBe(200);
    expect((await setup.gateway.app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
  });

  it('serves both turns as valid Anthropic streams and records them token-exact', async () => {
    const first = await replay(CAPTURE[1]!);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await readAnthropicStream(first);
    const toolStart = events.find(
      (entry) => entry.event === 'content_block_start' && (entry.data.content_block as { type: string }).type === 'tool_use',
    );
    expect(toolStart?.data.content_block).toMatchObject({ name: 'Bash', id: expect.stringMatching(/^toolu_/) });
    expect(events.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });

    const second = await readAnthropicStream(await replay(CAPTURE[2]!));
    const text = second
      .filter((entry) => (entry.data.delta as { type?: string } | undefined)?.type === 'text_delta')
      .map((entry) => (entry.data.delta as { text: string }).text)
      .join('');
    expect(text.trim()).toBe('DONE tokentap-ok');
    expect(second.at(-2)?.data).toMatchObject({ delta: { stop_reason: 'end_turn' } });

    const calls = setup.gateway.store.listCalls('cc');
    expect(calls.map((call) => [call.frontDoor, call.path, call.requestedModel, call.backendModel])).toEqual([
      ['anthropic-messages', '/s/cc/v1/messages', 'Qwen/Qwen3-8B', SERVED],
      ['anthropic-messages', '/s/cc/v1/messages', 'Qwen/Qwen3-8B', SERVED],
    ]);
    expectCallsMatchSim(calls, setup.sim.log);
    expect(setup.gateway.store.getCallBodies(calls[0]?.id ?? '')?.requestBody).toEqual(CAPTURE[1]?.body);
    expect(calls[0]?.metadata).toMatchObject({
      'anthropic-version': '2023-06-01',
      'anthropic-beta': expect.stringContaining('claude-code-20250219'),
      'x-claude-code-session-id': '8886c342-27b1-4487-900c-31aeced07b96',
      thinkingType: 'adaptive',
      anthropicUserId: expect.stringContaining('8886c342'),
      ignoredFields: ['context_management', 'output_config'],
      sessionSource: 'path',
    });
  });

  it('sends the backend a chat request without the billing header, beta fields or claude model name', async () => {
    await (await replay(CAPTURE[2]!)).arrayBuffer();
    const body = backendBodyOf(0);
    expect(body.model).toBe(SERVED);
    const system = body.messages[0] as { role: string; content: string };
    expect(system.role).toBe('system');
    expect(system.content.startsWith("You are a Claude agent, built on Anthropic's Claude Agent SDK.")).toBe(true);
    expect(JSON.stringify(body)).not.toContain('x-anthropic-billing-header');
    // the mid-conversation system message stays where Claude Code put it, after the first user turn
    expect(body.messages.map((message) => message.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool']);
    expect(body.messages[3]).toMatchObject({
      tool_calls: [
        {
          id: 'toolu_01',
          type: 'function',
          function: { name: 'Bash', arguments: '{"command":"echo tokentap-ok > proof.txt && cat proof.txt","description":"proof"}' },
        },
      ],
    });
    expect(body.messages[4]).toEqual({ role: 'tool', tool_call_id: 'toolu_01', content: 'tokentap-ok' });
    expect(body.tools).toHaveLength(24);
    expect(body).toMatchObject({
      max_tokens: 32000,
      stream: true,
      chat_template_kwargs: { enable_thinking: true },
      stream_options: { include_usage: true },
    });
    for (const field of ['tool_choice', 'metadata', 'context_management', 'output_config', 'thinking', 'system'])
      expect(body).not.toHaveProperty(field);
  });

  it('drops server tools (recorded in metadata) and omits tool_choice when no tool is left', async () => {
    const captured = CAPTURE[1]!;
    const serverTools = [
      { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
      { type: 'code_execution_20250825', name: 'code_execution' },
    ];
    const withServerTools = { ...captured.body, tools: [...(captured.body?.tools as unknown[]), ...serverTools], tool_choice: { type: 'any' } };
    await readAnthropicStream(await replay(captured, withServerTools));
    expect(backendBodyOf(0).tools).toHaveLength(24);
    expect(backendBodyOf(0).tool_choice).toBe('required');
    expect(setup.gateway.store.listCalls('cc')[0]?.metadata.droppedTools).toEqual([
      { name: 'web_search', type: 'web_search_20250305' },
      { name: 'code_execution', type: 'code_execution_20250825' },
    ]);

    // Claude Code sends tools: [] on compaction turns
    await readAnthropicStream(await replay(captured, { ...captured.body, tools: serverTools, tool_choice: { type: 'auto' } }));
    expect(backendBodyOf(1)).not.toHaveProperty('tools');
    expect(backendBodyOf(1)).not.toHaveProperty('tool_choice');
  });

  it('counts the captured request with the backend tokenizer: the same prompt the backend then renders', async () => {
    const { max_tokens: _maxTokens, stream: _stream, metadata: _metadata, ...countBody } = CAPTURE[1]!.body!;
    const counted = await replay({ ...CAPTURE[1]!, url: '/s/cc/v1/messages/count_tokens?beta=true' }, countBody);
    expect(counted.status).toBe(200);
    const { input_tokens: inputTokens } = (await counted.json()) as { input_tokens: number };
    await readAnthropicStream(await replay(CAPTURE[1]!));
    expect(inputTokens).toBe(setup.sim.log[0]?.promptTokenIds.length);
    expect(inputTokens).toBeGreaterThan(10_000);
    expect(setup.gateway.store.listCalls('cc')).toHaveLength(1);
  });
});
