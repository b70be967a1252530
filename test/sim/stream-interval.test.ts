import { afterEach, describe, expect, it } from 'vitest';
import { streamGroups } from '../../sim/stream-groups.js';
import type { SimScript } from '../../sim/index.js';
import { postJson, sseChunks, startSim, WEATHER_TOOL, type RunningSim } from './sim-test-helpers.js';

const SCRIPT: SimScript = {
  replies: [
    {
      times: 'forever',
      reasoning: 'The user wants the weather, so I call the tool.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
    },
  ],
};
const PLAIN: SimScript = {
  replies: [
    {
      times: 'forever',
      content: 'A reply long enough to span several stream-interval groups of tokens, and then some more words so that max_tokens cuts it.',
    },
  ],
};

const running: RunningSim[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map(({ sim }) => sim.close()));
});

async function sims(script: SimScript, interval: number): Promise<[RunningSim, RunningSim]> {
  const pair = await Promise.all([startSim({ script, seed: 7 }), startSim({ script, seed: 7, streamInterval: interval })]);
  running.push(...pair);
  return pair;
}

function tokenCount(chunk: Record<string, any>): number {
  return (chunk.choices?.[0]?.token_ids as number[] | undefined)?.length ?? 0;
}

describe('streamGroups: how vLLM --stream-interval cuts a stream', () => {
  it('sends the first token alone, then N at a time, the rest at the end', () => {
    expect([...streamGroups(7, 3)]).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 4 },
      { start: 4, end: 7 },
    ]);
    expect([...streamGroups(8, 3)]).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 4 },
      { start: 4, end: 7 },
      { start: 7, end: 8 },
    ]);
    expect([...streamGroups(1, 5)]).toEqual([{ start: 0, end: 1 }]);
    expect([...streamGroups(0, 5)]).toEqual([]);
    expect([...streamGroups(3, 1)].map((group) => group.end - group.start)).toEqual([1, 1, 1]);
  });

  it('refuses an interval that is not a whole number from 1', async () => {
    await expect(startSim({ streamInterval: 0 })).rejects.toThrow(/streamInterval/);
    await expect(startSim({ streamInterval: 2.5 })).rejects.toThrow(/streamInterval/);
  });
});

describe('a simulator with a stream interval sends the same tokens in fewer chunks', () => {
  it('chat: reasoning, a tool call, ids, logprobs and usage all equal to the one-token-per-chunk stream', async () => {
    const [single, grouped] = await sims(SCRIPT, 4);
    const body = {
      model: 'Qwen/Qwen3-8B',
      stream: true,
      return_token_ids: true,
      logprobs: true,
      top_logprobs: 2,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
    };
    const [one, four] = await Promise.all(
      [single, grouped].map(async ({ url }) => sseChunks(await (await postJson(`${url}/v1/chat/completions`, body)).text())),
    );
    const tokenChunks = (chunks: Array<Record<string, any>>) => chunks.filter((chunk) => tokenCount(chunk) > 0);
    const counts = tokenChunks(four!).map(tokenCount);
    const total = tokenChunks(one!).length;
    expect(tokenChunks(one!).every((chunk) => tokenCount(chunk) === 1)).toBe(true);
    expect(counts[0]).toBe(1);
    expect(counts.slice(1, -1).every((count) => count === 4)).toBe(true);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(total);
    expect(counts.length).toBeLessThan(total / 3);
    const joined = (chunks: Array<Record<string, any>>) => ({
      ids: chunks.flatMap((chunk) => chunk.choices?.[0]?.token_ids ?? []),
      logprobs: chunks.flatMap((chunk) => chunk.choices?.[0]?.logprobs?.content ?? []),
      reasoning: chunks.map((chunk) => chunk.choices?.[0]?.delta?.reasoning ?? '').join(''),
      content: chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join(''),
      toolArguments: chunks
        .flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? [])
        .map((call: any) => call.function?.arguments ?? '')
        .join(''),
      finish: chunks.map((chunk) => chunk.choices?.[0]?.finish_reason).filter((reason) => reason !== null && reason !== undefined),
      usage: chunks.at(-1)?.usage,
      prompt: chunks[0]?.prompt_token_ids,
    });
    const a = joined(one!);
    const b = joined(four!);
    expect(b).toEqual(a);
    expect(a.reasoning).toContain('call the tool');
    expect(JSON.parse(a.toolArguments)).toEqual({ city: 'Paris' });
    expect(a.finish).toEqual(['tool_calls']);
    expect(a.logprobs).toHaveLength(a.ids.length);
    // a grouped chunk carries one logprob entry per token id it carries
    for (const chunk of tokenChunks(four!)) expect(chunk.choices[0].logprobs.content).toHaveLength(tokenCount(chunk));
  });

  it('completions: text, ids, logprobs and offsets equal to the one-token-per-chunk stream', async () => {
    const [single, grouped] = await sims(PLAIN, 5);
    const body = { model: 'Qwen/Qwen3-8B', prompt: 'Say something long.', max_tokens: 23, stream: true, return_token_ids: true, logprobs: 1 };
    const [one, five] = await Promise.all(
      [single, grouped].map(async ({ url }) => sseChunks(await (await postJson(`${url}/v1/completions`, body)).text())),
    );
    expect(five!.map(tokenCount)).toEqual([1, 5, 5, 5, 5, 2]);
    const joined = (chunks: Array<Record<string, any>>) => ({
      text: chunks.map((chunk) => chunk.choices[0].text).join(''),
      ids: chunks.flatMap((chunk) => chunk.choices[0].token_ids),
      offsets: chunks.flatMap((chunk) => chunk.choices[0].logprobs.text_offset),
      logprobs: chunks.flatMap((chunk) => chunk.choices[0].logprobs.token_logprobs),
      tokens: chunks.flatMap((chunk) => chunk.choices[0].logprobs.tokens),
      finish: chunks.at(-1)?.choices[0].finish_reason,
      prompt: chunks[0]?.choices[0].prompt_token_ids,
    });
    expect(joined(five!)).toEqual(joined(one!));
    expect(joined(one!).ids).toHaveLength(23);
    expect(five!.slice(1).every((chunk) => chunk.choices[0].prompt_token_ids === null)).toBe(true);
  });
});
