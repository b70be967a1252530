import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { SimScript } from '../../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../../helpers/expect-calls-match-sim.js';
import { doneItems, postResponses, readResponsesEvents } from './openai-responses-events.js';

const MODEL = 'Qwen/Qwen3-8B';
const PATCH = '*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch';

const SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: 'Done!' }, times: 'forever', content: 'patched' },
    { match: { lastToolResultContains: 'closed' }, times: 'forever', content: 'agent closed' },
    {
      match: { lastUserContains: 'patch' },
      times: 'forever',
      reasoning: 'A patch it is.',
      toolCalls: [{ name: 'apply_patch', arguments: { input: PATCH } }],
    },
    {
      match: { lastUserContains: 'close agent' },
      times: 'forever',
      toolCalls: [{ name: 'multi_agent_v1__close_agent', arguments: { target: 'a1' } }],
    },
    { match: { lastUserContains: 'count' }, times: 'forever', reasoning: 'Counting.', content: 'one two three four five six seven' },
  ],
  otherwise: 'error',
};

/** Codex's free-form apply_patch tool (a lark grammar) and its sub-agent namespace. */
const CUSTOM_TOOL = {
  type: 'custom',
  name: 'apply_patch',
  description: 'Edit files with a patch.',
  format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
};
const NAMESPACE_TOOL = {
  type: 'namespace',
  name: 'multi_agent_v1',
  description: 'Sub-agents.',
  tools: [
    {
      type: 'function',
      name: 'close_agent',
      description: 'Close an agent.',
      parameters: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
    },
  ],
};
const TOOLS = [CUSTOM_TOOL, NAMESPACE_TOOL, { type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }];

let setup: GatewayWithSim;

beforeEach(async () => {
  setup = await startGatewayWithSim({ script: SCRIPT });
});

afterEach(async () => {
  await setup.close();
});

function url(session: string): string {
  return `${setup.openaiBase(session)}/responses`;
}

function backendBody(
  session: string,
  index: number,
): Record<string, unknown> & { messages: Array<Record<string, unknown>>; tools?: Array<{ function: Record<string, unknown> }> } {
  const call = setup.gateway.store.listCalls(session)[index];
  return setup.gateway.store.getCallBodies(call?.id ?? '')?.backendRequestBody as ReturnType<typeof backendBody>;
}

describe('custom (free-form) tools', () => {
  it('are offered as a function of one string `input` carrying the grammar, and called back as custom_tool_call', async () => {
    const answer = await postResponses(url('custom'), { model: MODEL, stream: true, tools: TOOLS, input: 'please patch hello.txt' });
    expect(answer.status).toBe(200);
    const events = readResponsesEvents(answer.text);
    const inputDone = events.find((event) => event.type === 'response.custom_tool_call_input.done');
    expect(inputDone?.input).toBe(PATCH);
    expect(
      events
        .filter((event) => event.type === 'response.custom_tool_call_input.delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe(PATCH);
    expect(events.some((event) => event.type.startsWith('response.function_call_arguments'))).toBe(false);
    const call = doneItems(events).find((item) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ name: 'apply_patch', input: PATCH, status: 'completed', call_id: expect.any(String) });
    expect(call).not.toHaveProperty('namespace');

    const tool = backendBody('custom', 0).tools?.find((entry) => entry.function.name === 'apply_patch')?.function;
    expect(tool?.parameters).toMatchObject({ type: 'object', properties: { input: { type: 'string' } }, required: ['input'] });
    expect(tool?.description).toBe('Edit files with a patch.\n\nThe input must match this lark grammar:\nstart: begin_patch hunk+ end_patch');
  });

  it('go back to the backend as a tool call with arguments {"input": ...}, rendering the turn as the model wrote it', async () => {
    const client = new OpenAI({ baseURL: setup.openaiBase('custom-loop'), apiKey: 'x', maxRetries: 0 });
    const tools = TOOLS as unknown as OpenAI.Responses.Tool[];
    const first = await client.responses.create({ model: MODEL, tools, input: 'please patch hello.txt' });
    const call = first.output.find((item) => item.type === 'custom_tool_call');
    if (call?.type !== 'custom_tool_call') throw new Error('no custom_tool_call');
    expect(call.input).toBe(PATCH);
    const second = await client.responses.create({
      model: MODEL,
      tools,
      input: [
        { role: 'user', content: 'please patch hello.txt' },
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: 'custom_tool_call_output', call_id: call.call_id, output: 'Done!' },
      ],
    });
    expect(second.output_text).toBe('patched');
    expect(backendBody('custom-loop', 1).messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        reasoning: '\nA patch it is.\n',
        reasoning_content: '\nA patch it is.\n',
        tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: PATCH }) } }],
      },
      { role: 'tool', tool_call_id: call.call_id, content: 'Done!' },
    ]);
    const [one, two] = setup.sim.log;
    expect(two?.promptTokenIds.slice(0, (one?.promptTokenIds.length ?? 0) + (one?.completionTokenIds.length ?? 0))).toEqual([
      ...(one?.promptTokenIds ?? []),
      ...(one?.completionTokenIds ?? []),
    ]);
    expectCallsMatchSim(setup.gateway.store.listCalls('custom-loop'), setup.sim.log);
  });
});

describe('namespace tools', () => {
  it('are flattened to namespace__member and a call comes back as {name, namespace}, then goes back flattened', async () => {
    const client = new OpenAI({ baseURL: setup.openaiBase('namespace'), apiKey: 'x', maxRetries: 0 });
    const tools = TOOLS as unknown as OpenAI.Responses.Tool[];
    const first = await client.responses.create({ model: MODEL, tools, input: 'close agent a1' });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'close_agent', namespace: 'multi_agent_v1', arguments: '{"target": "a1"}' });
    expect(backendBody('namespace', 0).tools?.map((tool) => tool.function.name)).toEqual(['apply_patch', 'multi_agent_v1__close_agent']);
    expect(setup.gateway.store.listCalls('namespace')[0]?.metadata.responses).toMatchObject({ droppedTools: ['web_search', 'file_search'] });

    const second = await client.responses.create({
      model: MODEL,
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: 'closed' }],
    });
    expect(second.output_text).toBe('agent closed');
    expect((backendBody('namespace', 1).messages[1]?.tool_calls as Array<{ function: { name: string } }>)[0]?.function.name).toBe(
      'multi_agent_v1__close_agent',
    );
  });
});

describe('request settings', () => {
  it('maps reasoning.effort to the thinking switch: minimal turns thinking off, high on', async () => {
    for (const [effort, thinking] of [
      ['minimal', false],
      ['high', true],
    ] as const) {
      const answer = await postResponses(url(`effort-${effort}`), { model: MODEL, input: 'count please', reasoning: { effort } });
      expect(answer.status).toBe(200);
      expect(backendBody(`effort-${effort}`, 0).chat_template_kwargs).toEqual({ enable_thinking: thinking });
      const types = (JSON.parse(answer.text) as { output: Array<{ type: string }> }).output.map((item) => item.type);
      expect(types).toEqual(thinking ? ['reasoning', 'message'] : ['message']);
    }
  });

  it('forwards instructions, sampling and text.format, echoes the rest, and records nothing it did not send', async () => {
    const body = {
      model: MODEL,
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Count in English.' },
        { role: 'user', content: 'count please' },
      ],
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 200,
      metadata: { run: '7' },
      prompt_cache_key: 'k1',
      store: false,
      include: ['reasoning.encrypted_content'],
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    };
    const answer = await postResponses(url('settings'), body);
    expect(answer.status).toBe(200);
    const backend = backendBody('settings', 0);
    expect(backend.messages.slice(0, 2)).toEqual([
      { role: 'system', content: 'Be brief.\n\nCount in English.' },
      { role: 'user', content: 'count please' },
    ]);
    expect(backend).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 200,
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
    });
    for (const key of ['instructions', 'metadata', 'prompt_cache_key', 'store', 'include', 'text', 'max_output_tokens', 'input'])
      expect(backend).not.toHaveProperty(key);
    expect(JSON.parse(answer.text)).toMatchObject({
      object: 'response',
      status: 'completed',
      instructions: 'Be brief.',
      metadata: { run: '7' },
      prompt_cache_key: 'k1',
      store: false,
      temperature: 0.2,
    });
  });

  for (const stream of [false, true]) {
    it(`reports a reply cut by max_output_tokens as incomplete (${stream ? 'response.incomplete event' : 'status'})`, async () => {
      const answer = await postResponses(url(`cut-${stream}`), { model: MODEL, input: 'count please', max_output_tokens: 3, stream });
      expect(answer.status).toBe(200);
      const response = stream
        ? (readResponsesEvents(answer.text).at(-1) as unknown as { type: string; response: unknown })
        : { type: 'response.incomplete', response: JSON.parse(answer.text) };
      expect(response.type).toBe('response.incomplete');
      expect(response.response).toMatchObject({
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        usage: { output_tokens: 3 },
      });
      expect(setup.gateway.store.listCalls(`cut-${stream}`)[0]).toMatchObject({ status: 'ok', finishReason: 'length' });
    });
  }
});
