import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { postJson, sseChunks, startSim, WEATHER_TOOL } from './sim-test-helpers.js';

// entries are tried in order: the tool-result reply comes first, since the last user message still mentions weather
const SCRIPT = {
  replies: [
    { match: { lastToolResultContains: 'sunny' }, times: 'forever' as const, reasoning: 'Done.', content: 'It is sunny in Paris.' },
    {
      match: { lastUserContains: 'weather' },
      times: 'forever' as const,
      reasoning: 'The user wants the weather, so I call the tool.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }],
    },
  ],
};

const QUESTION = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

function client(url: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
}

describe('chat completions with tools through the openai client', () => {
  it('parses a non-streamed Hermes tool call back into message.tool_calls', async () => {
    const { sim, url } = await startSim({ script: SCRIPT });
    try {
      const completion = await client(url).chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: QUESTION, tools: [WEATHER_TOOL] });
      const choice = completion.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      const call = choice.message.tool_calls?.[0];
      expect(call?.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
      expect(call?.type).toBe('function');
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function.name).toBe('get_weather');
      expect(call.function.arguments).toBe('{"city": "Paris", "unit": "celsius"}');
      expect((choice.message as unknown as { reasoning: string }).reasoning).toBe('\nThe user wants the weather, so I call the tool.\n');
      expect(completion.usage?.completion_tokens).toBe(sim.log[0]?.completionTokenIds.length);
      expect(sim.log[0]?.toolCalls).toEqual([{ name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"}' }]);
    } finally {
      await sim.close();
    }
  });

  it('streams the tool call as vLLM does: id, type and name first, then argument pieces', async () => {
    const { sim, url } = await startSim({ script: SCRIPT });
    try {
      const stream = await client(url).chat.completions.create({
        model: 'Qwen/Qwen3-8B',
        messages: QUESTION,
        tools: [WEATHER_TOOL],
        stream: true,
        stream_options: { include_usage: true },
      });
      const toolDeltas: Array<Record<string, any>> = [];
      let finishReason: string | null = null;
      let reasoning = '';
      let completionTokens = 0;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
        if (choice === undefined) continue;
        reasoning += (choice.delta as { reasoning?: string }).reasoning ?? '';
        toolDeltas.push(...(choice.delta.tool_calls ?? []));
        finishReason = choice.finish_reason ?? finishReason;
      }
      expect(finishReason).toBe('tool_calls');
      expect(reasoning).toBe('\nThe user wants the weather, so I call the tool.\n');
      expect(toolDeltas[0]).toMatchObject({ type: 'function', index: 0, function: { name: 'get_weather' } });
      expect(toolDeltas[0]?.id).toMatch(/^chatcmpl-tool-/);
      expect(toolDeltas.slice(1).every((delta) => delta.id === undefined && delta.function.name === undefined)).toBe(true);
      const argumentsText = toolDeltas.map((delta) => delta.function.arguments ?? '').join('');
      expect(JSON.parse(argumentsText)).toEqual({ city: 'Paris', unit: 'celsius' });
      expect(completionTokens).toBe(sim.log[0]?.completionTokenIds.length);
    } finally {
      await sim.close();
    }
  });

  it('keeps token ids prefix-stable when the tool-call turn comes back with its reasoning and no content', async () => {
    const { sim, url } = await startSim({ script: SCRIPT });
    try {
      const first = await client(url).chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: QUESTION, tools: [WEATHER_TOOL] });
      const message = first.choices[0]!.message as unknown as Record<string, any>;
      // vLLM hands back the "\n\n" between </think> and <tool_call> as content
      expect(message.content).toBe('\n\n');
      const call = message.tool_calls[0];
      const historyWith = (content: string | null): any[] => [
        ...QUESTION,
        { role: 'assistant', content, reasoning_content: message.reasoning, tool_calls: message.tool_calls },
        { role: 'tool', tool_call_id: call.id, content: 'sunny, 24 degrees' },
      ];
      const second = await client(url).chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: historyWith(null), tools: [WEATHER_TOOL] });
      expect(second.choices[0]!.message.content).toBe('\n\nIt is sunny in Paris.');
      await client(url).chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: historyWith(message.content), tools: [WEATHER_TOOL] });
      const [turn1, withoutContent, withContent] = sim.log;
      const turn1Ids = [...turn1!.promptTokenIds, ...turn1!.completionTokenIds];
      expect(withoutContent!.promptTokenIds.slice(0, turn1Ids.length)).toEqual(turn1Ids);
      // the Qwen3 template puts a "\n" before the first <tool_call> when content is non-empty: the prefix drifts
      expect(withContent!.promptText).toContain('</think>\n\n\n<tool_call>');
      expect(withContent!.promptTokenIds.slice(0, turn1Ids.length)).not.toEqual(turn1Ids);
    } finally {
      await sim.close();
    }
  });

  it.each([
    [false, 'every completion id streams, the swallowed ones in empty-delta chunks'],
    [true, 'old vLLM: swallowed ids never stream, so fewer ids than usage.completion_tokens'],
  ])('dropStreamedToolCallIds %s: %s', async (dropStreamedToolCallIds) => {
    const { sim, url } = await startSim({ script: SCRIPT, dropStreamedToolCallIds });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, {
        messages: QUESTION,
        tools: [WEATHER_TOOL],
        stream: true,
        return_token_ids: true,
        stream_options: { include_usage: true },
      });
      const chunks = sseChunks(await response.text());
      const streamedIds = chunks.flatMap((chunk) => (chunk.choices[0]?.token_ids ?? []) as number[]);
      const usage = chunks.at(-1)!.usage.completion_tokens as number;
      expect(usage).toBe(sim.log[0]!.completionTokenIds.length);
      if (dropStreamedToolCallIds) {
        expect(streamedIds.length).toBeLessThan(usage);
        expect(chunks.every((chunk) => chunk.choices[0] === undefined || Object.keys(chunk.choices[0].delta).length > 0)).toBe(true);
      } else {
        expect(streamedIds).toEqual(sim.log[0]!.completionTokenIds);
      }
    } finally {
      await sim.close();
    }
  });
});
