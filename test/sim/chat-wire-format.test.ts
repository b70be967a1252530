import { describe, expect, it } from 'vitest';
import { postJson, ssePayloads, sseChunks, startSim } from './sim-test-helpers.js';

const THINKING_REPLY = { replies: [{ times: 'forever' as const, reasoning: 'Two plus two.', content: 'It is 4.' }] };
const ASK = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'What is 2+2?' }] };

async function chat(url: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await postJson(`${url}/v1/chat/completions`, { ...ASK, ...body });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

async function chatStream(url: string, body: Record<string, unknown>): Promise<Array<Record<string, any>>> {
  const response = await postJson(`${url}/v1/chat/completions`, { ...ASK, ...body, stream: true });
  const text = await response.text();
  expect(ssePayloads(text).at(-1)).toBe('[DONE]');
  return sseChunks(text);
}

describe('chat wire format', () => {
  it('lays out a non-streamed body in vLLM model_dump order', async () => {
    const { sim, url } = await startSim({ script: THINKING_REPLY });
    try {
      const body = await chat(url, {});
      expect(Object.keys(body)).toEqual([
        'id',
        'object',
        'created',
        'model',
        'choices',
        'service_tier',
        'system_fingerprint',
        'usage',
        'prompt_logprobs',
        'prompt_token_ids',
        'kv_transfer_params',
      ]);
      expect(body.id).toMatch(/^chatcmpl-[0-9a-f]{16}$/);
      expect(Object.keys(body.choices[0])).toEqual(['index', 'message', 'logprobs', 'finish_reason', 'stop_reason', 'token_ids']);
      expect(Object.keys(body.choices[0].message)).toEqual([
        'role',
        'content',
        'refusal',
        'annotations',
        'audio',
        'function_call',
        'tool_calls',
        'reasoning',
      ]);
      expect(body.choices[0].message).toMatchObject({ content: '\n\nIt is 4.', reasoning: '\nTwo plus two.\n', tool_calls: [] });
      expect(Object.keys(body.usage)).toEqual(['prompt_tokens', 'total_tokens', 'completion_tokens', 'prompt_tokens_details']);
    } finally {
      await sim.close();
    }
  });

  it.each([
    ['reasoning', ['reasoning']],
    ['reasoning_content', ['reasoning_content']],
    ['both', ['reasoning_content', 'reasoning']],
  ] as const)('puts reasoning under the %s flavour, streamed and not', async (reasoningField, keys) => {
    const { sim, url } = await startSim({ script: THINKING_REPLY, reasoningField });
    try {
      const message = (await chat(url, {})).choices[0].message;
      for (const key of keys) expect(message[key]).toBe('\nTwo plus two.\n');
      expect(Object.keys(message).filter((key) => key.startsWith('reasoning'))).toEqual(keys);
      const chunks = await chatStream(url, {});
      const reasoningChunk = chunks.find((chunk) => Object.keys(chunk.choices[0]?.delta ?? {}).some((key) => key.startsWith('reasoning')));
      expect(Object.keys(reasoningChunk!.choices[0].delta)).toEqual(keys);
      const streamed = chunks.map((chunk) => chunk.choices[0]?.delta?.[keys[0]] ?? '').join('');
      expect(streamed).toBe('\nTwo plus two.\n');
    } finally {
      await sim.close();
    }
  });

  it('returns token ids only when asked: null otherwise, or absent in the pre-0.10.2 flavour', async () => {
    const { sim, url } = await startSim({ script: THINKING_REPLY });
    const old = await startSim({ script: THINKING_REPLY, unrequestedTokenIds: 'absent' });
    try {
      const asked = await chat(url, { return_token_ids: true });
      expect(asked.prompt_token_ids).toEqual(sim.log[0]?.promptTokenIds);
      expect(asked.choices[0].token_ids).toEqual(sim.log[0]?.completionTokenIds);
      const notAsked = await chat(url, {});
      expect(notAsked.prompt_token_ids).toBeNull();
      expect(notAsked.choices[0].token_ids).toBeNull();
      const chunks = await chatStream(url, {});
      expect(chunks[0]!.prompt_token_ids).toBeNull();
      expect(chunks.slice(1).every((chunk) => chunk.choices[0].token_ids === null)).toBe(true);
      const oldBody = await chat(old.url, {});
      expect(oldBody).not.toHaveProperty('prompt_token_ids');
      expect(oldBody.choices[0]).not.toHaveProperty('token_ids');
      const oldChunks = await chatStream(old.url, {});
      expect(oldChunks.some((chunk) => 'prompt_token_ids' in chunk || 'token_ids' in (chunk.choices[0] ?? {}))).toBe(false);
    } finally {
      await Promise.all([sim.close(), old.sim.close()]);
    }
  });

  it('streams one chunk per completion token with token ids, the <think> tags as empty deltas', async () => {
    const { sim, url } = await startSim({ script: THINKING_REPLY });
    try {
      const chunks = await chatStream(url, { return_token_ids: true });
      const ids = chunks.slice(1).flatMap((chunk) => chunk.choices[0].token_ids);
      expect(ids).toEqual(sim.log[0]?.completionTokenIds);
      expect(chunks.slice(1).every((chunk) => chunk.choices[0].token_ids.length === 1)).toBe(true);
      expect(chunks[1]!.choices[0]).toMatchObject({ delta: {}, token_ids: [151667] });
      expect(chunks.at(-1)!.choices[0]).toMatchObject({ delta: { content: '' }, finish_reason: 'stop', stop_reason: null, token_ids: [151645] });
    } finally {
      await sim.close();
    }
  });

  it('gives one logprob entry per completion token, with top_logprobs, streamed and not', async () => {
    const { sim, url } = await startSim({ script: THINKING_REPLY });
    try {
      const body = await chat(url, { logprobs: true, top_logprobs: 3 });
      const content = body.choices[0].logprobs.content as Array<Record<string, any>>;
      expect(content).toHaveLength(body.usage.completion_tokens);
      expect(content.map((entry) => entry.logprob)).toEqual(sim.log[0]?.logprobs);
      expect(content.every((entry) => entry.logprob < 0 && entry.top_logprobs.length === 3)).toBe(true);
      expect(Object.keys(content[0]!)).toEqual(['token', 'logprob', 'bytes', 'top_logprobs']);
      expect(content.at(-1)).toMatchObject({ token: '<|im_end|>', bytes: [...Buffer.from('<|im_end|>')] });
      expect(content[0]!.top_logprobs[0]).toEqual({ token: content[0]!.token, logprob: content[0]!.logprob, bytes: content[0]!.bytes });
      const chunks = await chatStream(url, { logprobs: true });
      const streamed = chunks.slice(1).flatMap((chunk) => chunk.choices[0].logprobs.content);
      expect(streamed).toHaveLength(sim.log[1]!.completionTokenIds.length);
      expect(streamed.map((entry) => entry.logprob)).toEqual(sim.log[1]?.logprobs);
    } finally {
      await sim.close();
    }
  });

  it('cuts at max_tokens with finish_reason length and no end-of-turn token', async () => {
    const { sim, url } = await startSim({ script: THINKING_REPLY });
    try {
      const body = await chat(url, { max_tokens: 5, return_token_ids: true });
      expect(body.choices[0].finish_reason).toBe('length');
      expect(body.choices[0].token_ids).toHaveLength(5);
      expect(body.choices[0].token_ids).not.toContain(151645);
      expect(body.usage.completion_tokens).toBe(5);
      const chunks = await chatStream(url, { max_completion_tokens: 3, return_token_ids: true });
      expect(chunks.at(-1)!.choices[0].finish_reason).toBe('length');
      expect(chunks.slice(1).flatMap((chunk) => chunk.choices[0].token_ids)).toHaveLength(3);
    } finally {
      await sim.close();
    }
  });

  it('ends at a stop string (left out of the text) and reports it as stop_reason', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ times: 'forever', content: 'one, two, three, four' }] } });
    try {
      const body = await chat(url, { stop: [', three'], chat_template_kwargs: { enable_thinking: false } });
      expect(body.choices[0]).toMatchObject({ finish_reason: 'stop', stop_reason: ', three' });
      expect(body.choices[0].message.content).toBe('one, two');
      const chunks = await chatStream(url, { stop: ', three' });
      expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('one, two');
    } finally {
      await sim.close();
    }
  });

  it('sends usage last with include_usage, and on every chunk with continuous_usage_stats', async () => {
    const { sim, url } = await startSim({ script: THINKING_REPLY });
    try {
      const chunks = await chatStream(url, { stream_options: { include_usage: true } });
      const last = chunks.at(-1)!;
      expect(last.choices).toEqual([]);
      expect(last.usage).toEqual({
        prompt_tokens: sim.log[0]!.promptTokenIds.length,
        total_tokens: sim.log[0]!.promptTokenIds.length + sim.log[0]!.completionTokenIds.length,
        completion_tokens: sim.log[0]!.completionTokenIds.length,
      });
      expect(chunks.slice(0, -1).every((chunk) => !('usage' in chunk))).toBe(true);
      const continuous = await chatStream(url, { stream_options: { include_usage: true, continuous_usage_stats: true } });
      expect(continuous.every((chunk) => chunk.usage !== undefined)).toBe(true);
      expect(continuous[0]!.usage.completion_tokens).toBe(0);
      expect(continuous.at(-2)!.usage.completion_tokens).toBe(sim.log[1]!.completionTokenIds.length);
    } finally {
      await sim.close();
    }
  });
});
