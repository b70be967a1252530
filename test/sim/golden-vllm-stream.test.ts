import { describe, expect, it } from 'vitest';
import { postJson, readCapture, ssePayloads, sseChunks, startSim } from './sim-test-helpers.js';

const STREAM_CAPTURE = 'vllm-chat-stream-tokenids-qwen25-agentlightning-archive.jsonl';
const ASSEMBLED_CAPTURE = 'vllm-chat-stream-tokenids-gateway-assembled-agentlightning-archive.jsonl';

describe('golden: a real vLLM stream with return_token_ids', () => {
  const capture = readCapture(STREAM_CAPTURE);
  const captured: Array<Record<string, any>> = capture.response;
  const capturedText = captured.map((chunk) => chunk.choices[0].delta.content ?? '').join('');
  const capturedPromptIds: number[] = captured[0]?.prompt_token_ids;
  const capturedCompletionIds = captured.slice(1).flatMap((chunk) => chunk.choices[0].token_ids as number[]);

  it('reproduces the capture: 63 prompt ids, 200 completion ids ending in <|im_end|>, chunk for chunk', async () => {
    const { sim, url } = await startSim({ modelName: capture.request.model, script: { replies: [{ text: capturedText }] } });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, capture.request);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const body = await response.text();
      expect(ssePayloads(body).at(-1)).toBe('[DONE]');
      const chunks = sseChunks(body);

      expect(capturedPromptIds).toHaveLength(63);
      expect(capturedCompletionIds).toHaveLength(200);
      expect(chunks).toHaveLength(captured.length);
      expect(Object.keys(chunks[0]!)).toEqual(['id', 'object', 'created', 'model', 'choices', 'prompt_token_ids']);
      expect(chunks[0]!.prompt_token_ids).toEqual(capturedPromptIds);
      expect(JSON.stringify(chunks[0]!.choices)).toBe(JSON.stringify(captured[0]!.choices));
      expect(chunks[0]!.choices[0]).not.toHaveProperty('token_ids');
      chunks.slice(1).forEach((chunk, index) => {
        expect(Object.keys(chunk)).toEqual(['id', 'object', 'created', 'model', 'choices']);
        // the choice objects, keys in order: delta, logprobs, finish_reason, (stop_reason), token_ids
        expect(JSON.stringify(chunk.choices)).toBe(JSON.stringify(captured[index + 1]!.choices));
      });
      expect(chunks.at(-1)!.choices[0]).toEqual({
        index: 0,
        delta: { content: '' },
        logprobs: null,
        finish_reason: 'stop',
        stop_reason: null,
        token_ids: [151645],
      });
      expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);

      const [record] = sim.log;
      expect(record?.promptTokenIds).toEqual(capturedPromptIds);
      expect(record?.completionTokenIds).toEqual(capturedCompletionIds);
      expect(record?.text).toBe(capturedText);
      expect(record?.finishReason).toBe('stop');
    } finally {
      await sim.close();
    }
  });

  it('matches the token values of the gateway-assembled cross-check capture (same prompt, another run)', async () => {
    const assembled = readCapture(ASSEMBLED_CAPTURE);
    const text: string = assembled.response.choices[0].message.content;
    const { sim, url } = await startSim({ modelName: assembled.request.model, script: { replies: [{ text }] } });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, { ...assembled.request, stream: false });
      const body = (await response.json()) as Record<string, any>;
      expect(assembled.response.prompt_token_ids).toEqual(capturedPromptIds);
      expect(body.prompt_token_ids).toEqual(assembled.response.prompt_token_ids);
      expect(body.choices[0].token_ids).toEqual(assembled.response.choices[0].token_ids);
      expect(body.choices[0].token_ids.at(-1)).toBe(151645);
      expect(body.choices[0].message.content).toBe(text);
      expect(body.usage.completion_tokens).toBe(assembled.response.choices[0].token_ids.length);
    } finally {
      await sim.close();
    }
  });
});
