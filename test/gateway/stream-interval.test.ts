import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Tool } from 'openai/resources/responses/responses';
import type { SimScript } from '../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../helpers/expect-calls-match-sim.js';

/**
 * vLLM with `--stream-interval N` (and any vLLM whose frontend falls behind its engine) sends chunks that carry
 * several tokens: several ids, as many logprob entries, the text of all of them. Every front door must record them
 * token-exact and hand the harness the same answer it gets from a one-token-per-chunk stream.
 */
const SCRIPT: SimScript = {
  replies: [
    {
      match: { lastToolResultContains: 'sunny' },
      times: 'forever',
      reasoning: 'The tool says it is sunny there.',
      content: 'It is sunny in Paris today, with a light breeze from the west.',
    },
    {
      match: { lastUserContains: 'weather' },
      times: 'forever',
      reasoning: 'I should call the weather tool for Paris.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }],
    },
    {
      match: { promptContains: 'Write a line' },
      times: 'forever',
      content: 'Paris is sunny today, with a light breeze from the west and a few clouds by the river.',
    },
  ],
  otherwise: 'error',
};
const PARAMETERS = { type: 'object' as const, properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] };
const QUESTION = 'What is the weather in Paris?';

const setups: GatewayWithSim[] = [];
afterEach(async () => {
  await Promise.all(setups.splice(0).map((setup) => setup.close()));
});

/** The same conversation, run against a one-token-per-chunk simulator and a grouped one. */
async function both<T>(run: (setup: GatewayWithSim) => Promise<T>): Promise<Array<{ setup: GatewayWithSim; seen: T }>> {
  const results: Array<{ setup: GatewayWithSim; seen: T }> = [];
  for (const streamInterval of [1, 4]) {
    const setup = await startGatewayWithSim({ script: SCRIPT, seed: 3, streamInterval }, { model: 'Qwen/Qwen3-8B' });
    setups.push(setup);
    results.push({ setup, seen: await run(setup) });
  }
  for (const { setup } of results) {
    const calls = setup.gateway.store.listCalls('grouped');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((call) => call.status === 'ok' && call.stream)).toBe(true);
    expectCallsMatchSim(calls, setup.sim.log);
  }
  // the grouped simulator did send fewer, larger chunks
  const streams = results.map(
    ({ setup }) => setup.gateway.store.getCallBodies(setup.gateway.store.listCalls('grouped')[0]!.id)?.responseStream ?? '',
  );
  const events = streams.map((text) => text.split('\n\n').filter((event) => event.includes('"token_ids"')).length);
  expect(events[1]).toBeLessThan(events[0]! / 2);
  return results;
}

describe('multi-token chunks through every front door', () => {
  it('Chat Completions (openai client, streamed tool loop)', async () => {
    const [one, four] = await both(async (setup) => {
      const client = new OpenAI({ baseURL: setup.openaiBase('grouped'), apiKey: 'sk-harness', maxRetries: 0 });
      const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: PARAMETERS } }];
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: QUESTION }];
      // the SDK's accumulated message keeps only the last `reasoning` delta (not an OpenAI field): read the chunks
      const stream = client.chat.completions.stream({ model: 'Qwen/Qwen3-8B', messages, tools });
      let reasoning = '';
      for await (const chunk of stream) reasoning += (chunk.choices[0]?.delta as { reasoning?: string } | undefined)?.reasoning ?? '';
      const first = await stream.finalChatCompletion();
      const call = first.choices[0]?.message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error('no tool call');
      messages.push(first.choices[0]!.message as OpenAI.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'sunny' });
      const second = await client.chat.completions.stream({ model: 'Qwen/Qwen3-8B', messages, tools }).finalChatCompletion();
      return {
        arguments: JSON.parse(call.function.arguments) as unknown,
        reasoning,
        answer: second.choices[0]?.message.content,
        finish: [first, second].map((done) => done.choices[0]?.finish_reason),
      };
    });
    expect(one!.seen).toEqual({
      arguments: { city: 'Paris', unit: 'celsius' },
      reasoning: expect.stringContaining('weather tool'),
      answer: '\n\nIt is sunny in Paris today, with a light breeze from the west.',
      finish: ['tool_calls', 'stop'],
    });
    expect(four!.seen).toEqual(one!.seen);
  });

  it('Completions (openai client, streamed)', async () => {
    const [one, four] = await both(async (setup) => {
      const client = new OpenAI({ baseURL: setup.openaiBase('grouped'), apiKey: 'sk-harness', maxRetries: 0 });
      const chunks = await client.completions.create({
        model: 'Qwen/Qwen3-8B',
        prompt: 'Write a line about the weather in Paris.\n',
        max_tokens: 40,
        stream: true,
        logprobs: 1,
      });
      let text = '';
      const logprobs: number[] = [];
      for await (const chunk of chunks) {
        text += chunk.choices[0]?.text ?? '';
        logprobs.push(...(chunk.choices[0]?.logprobs?.token_logprobs ?? []));
      }
      return { text, logprobs };
    });
    expect(one!.seen.text.length).toBeGreaterThan(20);
    expect(one!.seen.logprobs.length).toBeGreaterThan(5);
    expect(four!.seen).toEqual(one!.seen);
  });

  it('Anthropic Messages (@anthropic-ai/sdk, streamed tool_use then text)', async () => {
    const [one, four] = await both(async (setup) => {
      const client = new Anthropic({ baseURL: `${setup.url}/s/grouped`, apiKey: 'sk-ant-harness', maxRetries: 0 });
      const tools = [{ name: 'get_weather', input_schema: PARAMETERS }] as Anthropic.Tool[];
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: QUESTION }];
      const params = { model: 'claude-test', max_tokens: 1000, tools, thinking: { type: 'enabled' as const, budget_tokens: 500 } };
      const first = await client.messages.stream({ ...params, messages }).finalMessage();
      const toolUse = first.content.find((block) => block.type === 'tool_use');
      if (toolUse?.type !== 'tool_use') throw new Error('no tool_use');
      messages.push(
        { role: 'assistant', content: first.content as Anthropic.MessageParam['content'] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'sunny' }] },
      );
      const second = await client.messages.stream({ ...params, messages }).finalMessage();
      const shape = (message: Anthropic.Message) =>
        message.content.map((block) =>
          block.type === 'text'
            ? block.text
            : block.type === 'thinking'
              ? `thinking:${block.thinking}`
              : block.type === 'tool_use'
                ? block.input
                : block.type,
        );
      return {
        first: shape(first),
        second: shape(second),
        stops: [first.stop_reason, second.stop_reason],
        usage: [first.usage.output_tokens, second.usage.output_tokens],
      };
    });
    expect(one!.seen.stops).toEqual(['tool_use', 'end_turn']);
    expect(one!.seen.first).toContainEqual({ city: 'Paris', unit: 'celsius' });
    expect(four!.seen).toEqual(one!.seen);
  });

  it('Responses (openai client, streamed function call then text)', async () => {
    const [one, four] = await both(async (setup) => {
      const client = new OpenAI({ baseURL: setup.openaiBase('grouped'), apiKey: 'sk-harness', maxRetries: 0 });
      const tools: Tool[] = [{ type: 'function', name: 'get_weather', parameters: PARAMETERS, strict: false }];
      const final = async (body: OpenAI.Responses.ResponseCreateParamsStreaming): Promise<OpenAI.Responses.Response> => {
        let done: OpenAI.Responses.Response | null = null;
        for await (const event of await client.responses.create(body)) if (event.type === 'response.completed') done = event.response;
        if (done === null) throw new Error('no response.completed');
        return done;
      };
      const first = await final({ model: 'Qwen/Qwen3-8B', input: QUESTION, tools, stream: true });
      const call = first.output.find((item) => item.type === 'function_call');
      if (call?.type !== 'function_call') throw new Error('no function_call');
      const second = await final({
        model: 'Qwen/Qwen3-8B',
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
        tools,
        stream: true,
      });
      const text = second.output
        .flatMap((item) => (item.type === 'message' ? item.content : []))
        .map((part) => (part.type === 'output_text' ? part.text : ''))
        .join('');
      return { arguments: JSON.parse(call.arguments) as unknown, text, usage: [first.usage?.output_tokens, second.usage?.output_tokens] };
    });
    expect(one!.seen.text.trim()).toBe('It is sunny in Paris today, with a light breeze from the west.');
    expect(four!.seen).toEqual(one!.seen);
  });
});
