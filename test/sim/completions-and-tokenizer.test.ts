import { describe, expect, it } from 'vitest';
import { postJson, ssePayloads, sseChunks, startSim } from './sim-test-helpers.js';

const REPLY = { replies: [{ times: 'forever' as const, text: ' Paris, of course.' }] };

describe('/v1/completions', () => {
  it('takes a token-id prompt and returns prompt_token_ids and token_ids inside the choice', async () => {
    const { sim, url } = await startSim({ script: REPLY });
    try {
      const prompt = [785, 6722, 315, 9625, 374];
      const response = await postJson(`${url}/v1/completions`, { model: 'Qwen/Qwen3-8B', prompt, max_tokens: 50, return_token_ids: true });
      const body = (await response.json()) as Record<string, any>;
      expect(Object.keys(body)).toEqual([
        'id',
        'object',
        'created',
        'model',
        'choices',
        'service_tier',
        'system_fingerprint',
        'usage',
        'kv_transfer_params',
      ]);
      expect(body.id).toMatch(/^cmpl-/);
      expect(Object.keys(body.choices[0])).toEqual([
        'index',
        'text',
        'logprobs',
        'finish_reason',
        'stop_reason',
        'token_ids',
        'prompt_logprobs',
        'prompt_token_ids',
        'routed_experts',
      ]);
      expect(body.choices[0]).toMatchObject({ text: ' Paris, of course.', finish_reason: 'stop', prompt_token_ids: prompt });
      expect(body.choices[0].token_ids).toEqual(sim.log[0]?.completionTokenIds);
      expect(body.choices[0].token_ids.at(-1)).toBe(151645);
      expect(body.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: body.choices[0].token_ids.length });
      expect(sim.log[0]?.promptTokenIds).toEqual(prompt);
    } finally {
      await sim.close();
    }
  });

  it('defaults to vLLM max_tokens 16 and returns legacy logprobs with k alternatives', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ text: 'word '.repeat(40) }] } });
    try {
      const response = await postJson(`${url}/v1/completions`, { prompt: 'Say words:', logprobs: 2 });
      const body = (await response.json()) as Record<string, any>;
      expect(body.choices[0].finish_reason).toBe('length');
      expect(body.usage.completion_tokens).toBe(16);
      const logprobs = body.choices[0].logprobs;
      expect(Object.keys(logprobs)).toEqual(['text_offset', 'token_logprobs', 'tokens', 'top_logprobs']);
      expect(logprobs.tokens).toHaveLength(16);
      expect(logprobs.token_logprobs).toEqual(sim.log[0]?.logprobs);
      expect(logprobs.text_offset.slice(0, 3)).toEqual([0, 4, 9]);
      expect(Object.keys(logprobs.top_logprobs[0])).toHaveLength(3);
    } finally {
      await sim.close();
    }
  });

  it('streams one chunk per token with prompt_token_ids on the first only', async () => {
    const { sim, url } = await startSim({ script: REPLY });
    try {
      const response = await postJson(`${url}/v1/completions`, {
        prompt: 'The capital of France is',
        max_tokens: 50,
        stream: true,
        return_token_ids: true,
        stream_options: { include_usage: true },
      });
      const text = await response.text();
      expect(ssePayloads(text).at(-1)).toBe('[DONE]');
      const chunks = sseChunks(text);
      const tokenChunks = chunks.slice(0, -1);
      expect(tokenChunks[0]!.choices[0].prompt_token_ids).toEqual(sim.log[0]?.promptTokenIds);
      expect(tokenChunks.slice(1).every((chunk) => chunk.choices[0].prompt_token_ids === null)).toBe(true);
      expect(Object.keys(tokenChunks[0]!.choices[0])).toEqual([
        'index',
        'text',
        'logprobs',
        'finish_reason',
        'stop_reason',
        'prompt_token_ids',
        'token_ids',
      ]);
      expect(tokenChunks.flatMap((chunk) => chunk.choices[0].token_ids)).toEqual(sim.log[0]?.completionTokenIds);
      expect(tokenChunks.map((chunk) => chunk.choices[0].text).join('')).toBe(' Paris, of course.');
      expect(tokenChunks.at(-1)!.choices[0]).toMatchObject({ text: '', finish_reason: 'stop', token_ids: [151645] });
      expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: tokenChunks.length } });
    } finally {
      await sim.close();
    }
  });
});

describe('tokenizer and service endpoints', () => {
  it('round-trips text through /tokenize and /detokenize', async () => {
    const { sim, url } = await startSim();
    try {
      const text = 'Grüße, 世界! <think>ok</think>';
      const tokenized = (await (await postJson(`${url}/tokenize`, { prompt: text, return_token_strs: true })).json()) as Record<string, any>;
      expect(Object.keys(tokenized)).toEqual(['count', 'max_model_len', 'tokens', 'token_strs']);
      expect(tokenized.count).toBe(tokenized.tokens.length);
      expect(tokenized.tokens).toContain(151667);
      expect(tokenized.token_strs).toHaveLength(tokenized.count);
      const detokenized = (await (await postJson(`${url}/detokenize`, { tokens: tokenized.tokens })).json()) as Record<string, any>;
      expect(detokenized).toEqual({ prompt: text });
    } finally {
      await sim.close();
    }
  });

  it('tokenizes chat messages exactly as a chat completion prompt', async () => {
    const { sim, url } = await startSim({ script: REPLY });
    try {
      const messages = [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi' },
            { type: 'text', text: 'there' },
          ],
        },
      ];
      const tokenized = (await (await postJson(`${url}/tokenize`, { messages })).json()) as Record<string, any>;
      await postJson(`${url}/v1/chat/completions`, { messages });
      expect(tokenized.tokens).toEqual(sim.log[0]?.promptTokenIds);
      expect(sim.log[0]?.promptText).toBe('<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi\nthere<|im_end|>\n<|im_start|>assistant\n');
    } finally {
      await sim.close();
    }
  });

  it('lists the served model and answers /health', async () => {
    const { sim, url } = await startSim({ modelName: 'my-model', maxModelLen: 8192 });
    try {
      const models = (await (await fetch(`${url}/v1/models`)).json()) as Record<string, any>;
      expect(models.object).toBe('list');
      expect(models.data[0]).toMatchObject({ id: 'my-model', object: 'model', owned_by: 'vllm', max_model_len: 8192 });
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
      expect(await health.text()).toBe('');
    } finally {
      await sim.close();
    }
  });
});
