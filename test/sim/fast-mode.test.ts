import { describe, expect, it } from 'vitest';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { ALTERNATIVE_TOKENS, CANNED_REPLIES } from '../../sim/fast-canned-replies.js';
import { postJson, ssePayloads, sseChunks, startSim } from './sim-test-helpers.js';

const ASK = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'Benchmark me.' }] };

describe('fast mode', () => {
  it('canned replies and alternatives are exactly the Qwen3 tokenizer output', async () => {
    const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
    for (const canned of CANNED_REPLIES) {
      expect(tokenizer.encode(canned.tokenTexts.join(''))).toEqual(canned.tokenIds);
      expect(canned.tokenIds.map((id) => tokenizer.decode([id]))).toEqual(canned.tokenTexts);
    }
    for (const [id, text] of ALTERNATIVE_TOKENS) expect(tokenizer.encode(text)).toEqual([id]);
  });

  it('streams canned replies with token ids, logprobs and usage, without templating', async () => {
    const { sim, url } = await startSim({ fast: true });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, {
        ...ASK,
        stream: true,
        return_token_ids: true,
        logprobs: true,
        stream_options: { include_usage: true },
      });
      const text = await response.text();
      expect(ssePayloads(text).at(-1)).toBe('[DONE]');
      const chunks = sseChunks(text);
      const record = sim.log[0]!;
      expect(record.promptText).toBeNull();
      expect(chunks[0]!.prompt_token_ids).toEqual(record.promptTokenIds);
      const tokenChunks = chunks.slice(1, -1);
      expect(tokenChunks.flatMap((chunk) => chunk.choices[0].token_ids)).toEqual(record.completionTokenIds);
      expect(tokenChunks.flatMap((chunk) => chunk.choices[0].logprobs.content.map((entry: any) => entry.logprob))).toEqual(record.logprobs);
      expect(tokenChunks.map((chunk) => chunk.choices[0].delta.content).join('')).toBe(record.text);
      expect(record.text).toBe(CANNED_REPLIES[0]!.tokenTexts.join(''));
      expect(chunks.at(-1)!.usage).toEqual({
        prompt_tokens: record.promptTokenIds.length,
        total_tokens: record.promptTokenIds.length + record.completionTokenIds.length,
        completion_tokens: record.completionTokenIds.length,
      });
    } finally {
      await sim.close();
    }
  });

  it('derives prompt ids from the body size and honours max_tokens', async () => {
    const { sim, url } = await startSim({ fast: true });
    try {
      const short = (await (await postJson(`${url}/v1/chat/completions`, { ...ASK, return_token_ids: true })).json()) as Record<string, any>;
      const longMessages = [{ role: 'user', content: 'x'.repeat(4000) }];
      const long = (await (
        await postJson(`${url}/v1/chat/completions`, { messages: longMessages, max_tokens: 4, return_token_ids: true })
      ).json()) as Record<string, any>;
      expect(long.usage.prompt_tokens).toBeGreaterThan(short.usage.prompt_tokens + 900);
      expect(long.choices[0]).toMatchObject({ finish_reason: 'length' });
      expect(long.choices[0].token_ids).toHaveLength(4);
      expect(short.choices[0].token_ids.at(-1)).toBe(151645);
      expect(sim.log.map((record) => record.promptTokenIds.length)).toEqual([short.usage.prompt_tokens, long.usage.prompt_tokens]);
    } finally {
      await sim.close();
    }
  });

  it('still honours a script (tokenized once per entry) and faults', async () => {
    const { sim, url } = await startSim({
      fast: true,
      script: { replies: [{ times: 2, content: 'Scripted.' }, { fault: { kind: 'http-error', status: 503 } }] },
    });
    try {
      for (let turn = 0; turn < 2; turn++) {
        const body = (await (await postJson(`${url}/v1/chat/completions`, ASK)).json()) as Record<string, any>;
        expect(body.choices[0].message.content).toBe('Scripted.');
      }
      expect((await postJson(`${url}/v1/chat/completions`, ASK)).status).toBe(503);
      expect(sim.log.map((record) => record.scriptEntry)).toEqual([0, 0, 1]);
    } finally {
      await sim.close();
    }
  });
});
