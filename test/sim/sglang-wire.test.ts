import { afterEach, describe, expect, it } from 'vitest';
import { postJson, ssePayloads, sseChunks, startSim, type RunningSim } from './sim-test-helpers.js';
import type { SimBackendOptions, SimScript } from '../../sim/index.js';
import { gptOssModelFolder } from '../token-faithful/gpt-oss-model-folder.js';

/** The SGLang flavour's wire behaviour, each fact read from SGLang's source (named per test). */

type Json = Record<string, any>;
const QWEN_IM_END = 151645;
let running: RunningSim | null = null;

afterEach(async () => {
  await running?.sim.close();
  running = null;
});

async function sglang(script: SimScript, options: SimBackendOptions = {}): Promise<RunningSim> {
  running = await startSim({ flavour: 'sglang', ...options, script });
  return running;
}

async function generate(url: string, body: Json): Promise<Json> {
  const response = await postJson(`${url}/generate`, body);
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

async function streamedFrames(url: string, body: Json): Promise<{ frames: Json[]; payloads: string[] }> {
  const text = await (await postJson(`${url}/generate`, { ...body, stream: true })).text();
  return { frames: sseChunks(text), payloads: ssePayloads(text) };
}

const REPLY = { replies: [{ text: 'The plan is ready, step by step.', times: 'forever' as const }] };

describe('SGLang /generate finish reasons and output_ids (schedule_batch.py, detokenizer trimming)', () => {
  it('ends on the EOS with {type: stop, matched: <id>} and keeps that id as the last output id, out of the text', async () => {
    const { url, sim } = await sglang(REPLY);
    const body = await generate(url, { text: 'Plan:', sampling_params: { max_new_tokens: 64 } });
    expect(body.meta_info.finish_reason).toEqual({ type: 'stop', matched: QWEN_IM_END });
    expect(body.output_ids.at(-1)).toBe(QWEN_IM_END);
    expect(body.text).toBe('The plan is ready, step by step.');
    expect(body.meta_info.completion_tokens).toBe(body.output_ids.length);
    expect(sim.log[0]!.completionTokenIds).toEqual(body.output_ids);
  });

  it('ends on a stop string with {type: stop, matched: "<string>"}: the text stops before it, output_ids run through its token', async () => {
    const { url } = await sglang(REPLY);
    const full = await generate(url, { text: 'Plan:', sampling_params: { max_new_tokens: 64 } });
    const body = await generate(url, { text: 'Plan:', sampling_params: { max_new_tokens: 64, stop: ['step'] } });
    expect(body.meta_info.finish_reason).toEqual({ type: 'stop', matched: 'step' });
    expect(body.text).toBe('The plan is ready, ');
    expect(full.output_ids.slice(0, body.output_ids.length)).toEqual(body.output_ids);
    expect(body.output_ids.length).toBeLessThan(full.output_ids.length - 1);
    const kept = await generate(url, { text: 'Plan:', sampling_params: { max_new_tokens: 64, stop: ['step'], no_stop_trim: true } });
    expect(kept.text).toBe('The plan is ready, step');
  });

  it('ends on a stop token id with that id matched and last in output_ids, its text left out', async () => {
    const { url } = await sglang(REPLY);
    const full = await generate(url, { text: 'Plan:', sampling_params: { max_new_tokens: 64 } });
    const stopId = full.output_ids[3] as number;
    const body = await generate(url, { text: 'Plan:', sampling_params: { max_new_tokens: 64, stop_token_ids: [stopId] } });
    expect(body.meta_info.finish_reason).toEqual({ type: 'stop', matched: stopId });
    expect(body.output_ids).toEqual(full.output_ids.slice(0, 4));
    expect(full.text.startsWith(body.text)).toBe(true);
    expect(body.text.length).toBeLessThan(full.text.length);
  });

  it('ends on max_new_tokens with {type: length, length: N} and no EOS', async () => {
    const { url } = await sglang(REPLY);
    const body = await generate(url, { input_ids: [1, 2, 3], sampling_params: { max_new_tokens: 3 } });
    expect(body.meta_info.finish_reason).toEqual({ type: 'length', length: 3 });
    expect(body.output_ids).toHaveLength(3);
    expect(body.output_ids).not.toContain(QWEN_IM_END);
  });
});

describe('SGLang /generate logprobs (logprob_ops.py, scheduler_output_processor_mixin.py)', () => {
  it('gives one [logprob, id, text|null] triple per output id, in order, and top_logprobs_num alternatives led by it', async () => {
    const { url } = await sglang(REPLY);
    const body = await generate(url, { text: 'Plan:', return_logprob: true, top_logprobs_num: 3, sampling_params: { max_new_tokens: 64 } });
    const meta = body.meta_info;
    expect(meta.output_token_logprobs.map((triple: unknown[]) => triple[1])).toEqual(body.output_ids);
    expect(meta.output_token_logprobs.every((triple: unknown[]) => typeof triple[0] === 'number' && triple[2] === null)).toBe(true);
    expect(meta.output_token_logprobs_length).toBe(body.output_ids.length);
    expect(meta.output_top_logprobs).toHaveLength(body.output_ids.length);
    expect(meta.output_top_logprobs[0]).toHaveLength(3);
    expect(meta.output_top_logprobs[0][0]).toEqual(meta.output_token_logprobs[0]);
    // logprob_start_len -1 (the default) scores only the last prompt token, whose logprob is null
    expect(meta.input_token_logprobs).toHaveLength(1);
    expect(meta.input_token_logprobs[0][0]).toBeNull();
    // the logprob keys sit between num_retractions and reasoning_tokens
    const keys = Object.keys(meta);
    expect(keys.slice(keys.indexOf('num_retractions') + 1, keys.indexOf('reasoning_tokens'))).toEqual([
      'input_token_logprobs',
      'output_token_logprobs',
      'output_token_logprobs_length',
      'input_top_logprobs',
      'output_top_logprobs',
    ]);
  });

  it('puts token text in the triples with return_text_in_logprobs, and scores the prompt from logprob_start_len', async () => {
    const { url } = await sglang(REPLY);
    const body = await generate(url, { input_ids: [9707, 11, 1879], return_logprob: true, return_text_in_logprobs: true, logprob_start_len: 0 });
    expect(body.meta_info.output_token_logprobs[0][2]).toBe('The');
    expect(body.meta_info.output_token_logprobs.at(-1)[2]).toBe('<|im_end|>');
    expect(body.meta_info.input_token_logprobs.map((triple: unknown[]) => triple[1])).toEqual([9707, 11, 1879]);
    expect(body.meta_info.input_token_logprobs.map((triple: unknown[]) => triple[0] === null)).toEqual([true, false, false]);
  });
});

describe('streamed SGLang /generate (output_processor.py)', () => {
  it('repeats everything so far in every frame by default: text, output_ids and output_token_logprobs grow', async () => {
    const { url } = await sglang(REPLY);
    const whole = await generate(url, { text: 'Plan:', return_logprob: true });
    const { frames, payloads } = await streamedFrames(url, { text: 'Plan:', return_logprob: true });
    expect(payloads.at(-1)).toBe('[DONE]');
    expect(frames).toHaveLength(whole.output_ids.length);
    frames.forEach((frame, index) => {
      expect(frame.output_ids).toEqual(whole.output_ids.slice(0, index + 1));
      expect(frame.meta_info.output_token_logprobs.map((triple: unknown[]) => triple[1])).toEqual(frame.output_ids);
      expect(frame.meta_info.completion_tokens).toBe(index + 1);
      expect(whole.text.startsWith(frame.text)).toBe(true);
      expect(frame.meta_info.finish_reason).toEqual(index === frames.length - 1 ? whole.meta_info.finish_reason : null);
    });
    expect(frames.at(-1)!.text).toBe(whole.text);
    expect(Object.keys(frames[0]!.meta_info)).toContain('response_sent_to_client_ts');
    expect(Object.keys(frames[1]!.meta_info)).not.toContain('response_sent_to_client_ts');
    expect(Object.keys(frames.at(-1)!.meta_info)).toContain('e2e_latency');
    expect(Object.keys(frames[0]!.meta_info)).not.toContain('e2e_latency');
  });

  it('with --incremental-streaming-output sends only what is new: the frames join to the whole answer', async () => {
    const { url } = await sglang(REPLY, { incrementalStreamingOutput: true, streamInterval: 3 });
    const whole = await generate(url, { text: 'Plan:', return_logprob: true });
    const { frames } = await streamedFrames(url, { text: 'Plan:', return_logprob: true });
    expect(frames.flatMap((frame) => frame.output_ids)).toEqual(whole.output_ids);
    expect(frames.map((frame) => frame.text).join('')).toBe(whole.text);
    expect(frames.flatMap((frame) => frame.meta_info.output_token_logprobs)).toEqual(whole.meta_info.output_token_logprobs);
    // --stream-interval 3: the first token alone, then three at a time; the counts stay totals
    expect(frames.map((frame) => frame.output_ids.length).slice(0, 2)).toEqual([1, 3]);
    expect(frames.map((frame) => frame.meta_info.completion_tokens).at(-1)).toBe(whole.output_ids.length);
    expect(frames[1]!.meta_info.output_token_logprobs_length).toBe(4);
  });
});

describe('SGLang OpenAI-compatible routes (serving_chat.py, serving_completions.py, protocol.py)', () => {
  const messages = [{ role: 'user', content: 'Hi' }];

  it('refuses return_token_ids on a streamed chat request with its 400 body, and answers it non-streamed per choice', async () => {
    const { url, sim } = await sglang(REPLY);
    const refused = await postJson(`${url}/v1/chat/completions`, { messages, stream: true, return_token_ids: true });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      object: 'error',
      message: 'return_token_ids is not supported with streaming on /v1/chat/completions. Please set stream=false when using return_token_ids=true.',
      type: 'BadRequest',
      param: null,
      code: 400,
    });
    const body = (await (await postJson(`${url}/v1/chat/completions`, { messages, return_token_ids: true })).json()) as Json;
    const choice = body.choices[0];
    expect(Object.keys(choice)).toEqual(['index', 'message', 'logprobs', 'finish_reason', 'matched_stop', 'prompt_token_ids', 'token_ids']);
    expect(choice.token_ids).toEqual(sim.log.at(-1)!.completionTokenIds);
    expect(choice.token_ids.at(-1)).toBe(QWEN_IM_END);
    expect(choice.prompt_token_ids).toEqual(sim.log.at(-1)!.promptTokenIds);
    expect(body).not.toHaveProperty('prompt_token_ids');
  });

  it('ignores fields SGLang does not know (vLLM-only ones), as pydantic drops them', async () => {
    const { url } = await sglang(REPLY);
    const response = await postJson(`${url}/v1/chat/completions`, {
      messages,
      request_id: 'x',
      include_stop_str_in_output: true,
      return_tokens_as_token_ids: true,
    });
    expect(response.status).toBe(200);
  });

  it('streams chat as SGLang does: role chunk, deltas with reasoning_content, a separate finish chunk with matched_stop', async () => {
    const { url } = await sglang(REPLY);
    const text = await (await postJson(`${url}/v1/chat/completions`, { messages, stream: true, stream_options: { include_usage: true } })).text();
    const chunks = sseChunks(text);
    expect(chunks[0]!.choices[0]).toEqual({
      index: 0,
      delta: { reasoning_content: null, role: 'assistant', content: '' },
      logprobs: null,
      finish_reason: null,
      matched_stop: null,
    });
    const finish = chunks.at(-2)!;
    expect(finish.choices[0]).toEqual({
      index: 0,
      delta: { reasoning_content: null },
      logprobs: null,
      finish_reason: 'stop',
      matched_stop: QWEN_IM_END,
    });
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(Object.keys(chunks.at(-1)!.usage)).toEqual([
      'prompt_tokens',
      'total_tokens',
      'completion_tokens',
      'prompt_tokens_details',
      'reasoning_tokens',
    ]);
    const content = chunks
      .slice(1, -2)
      .map((chunk) => chunk.choices[0].delta.content ?? '')
      .join('');
    expect(content).toBe('The plan is ready, step by step.');
  });

  it('streams completions with the ids of each chunk and the prompt ids on the first', async () => {
    const { url } = await sglang(REPLY);
    const text = await (await postJson(`${url}/v1/completions`, { prompt: 'Plan:', stream: true, return_token_ids: true, max_tokens: 5 })).text();
    const chunks = sseChunks(text);
    expect(chunks.map((chunk) => chunk.choices[0].token_ids.length)).toEqual([1, 1, 1, 1, 1]);
    expect(chunks[0]!.choices[0].prompt_token_ids.length).toBeGreaterThan(0);
    expect(chunks.slice(1).every((chunk) => !('prompt_token_ids' in chunk.choices[0]))).toBe(true);
    expect(chunks.at(-1)!.choices[0]).toMatchObject({ finish_reason: 'length', matched_stop: null });
  });
});

describe('SGLang weight version (http_server.py /update_weight_version, /get_model_info)', () => {
  it('reports the version it was started with, and the new one after /update_weight_version', async () => {
    const { url, sim } = await sglang(REPLY, { weightVersion: 'step-1' });
    expect((await generate(url, { text: 'Plan:' })).meta_info.weight_version).toBe('step-1');
    const updated = await postJson(`${url}/update_weight_version`, { new_version: 'step-2' });
    expect(await updated.json()).toEqual({ success: true, message: 'Weight version updated to step-2', new_version: 'step-2' });
    expect((await generate(url, { text: 'Plan:' })).meta_info.weight_version).toBe('step-2');
    const chat = (await (await postJson(`${url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'Hi' }] })).json()) as Json;
    expect(chat.metadata).toEqual({ weight_version: 'step-2' });
    sim.setWeightVersion('step-3');
    expect(((await (await fetch(`${url}/get_model_info`)).json()) as Json).weight_version).toBe('step-3');
    const info = (await (await fetch(`${url}/get_server_info`)).json()) as Json;
    expect(info).toMatchObject({ incremental_streaming_output: false, weight_version: 'step-3' });
    expect(typeof info.version).toBe('string');
    expect((await fetch(`${url}/health_generate`)).status).toBe(200);
    const models = (await (await fetch(`${url}/v1/models`)).json()) as Json;
    expect(models.data[0]).toMatchObject({ object: 'model', owned_by: 'sglang', parent: null });
  });

  it('answers a missing prompt on /generate with its native error body', async () => {
    const { url } = await sglang(REPLY);
    const response = await postJson(`${url}/generate`, { sampling_params: {} });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { message: 'Either text, input_ids or input_embeds should be provided.' } });
  });
});

describe('SGLang /generate special tokens (sampling_params.py skip_special_tokens, detokenizer_manager.py)', () => {
  it("leaves a special token's text out by default and keeps it with skip_special_tokens false (Harmony's markers)", async () => {
    const folder = gptOssModelFolder();
    try {
      const reply = { reasoning: 'Greet.', content: 'Hello.', times: 'forever' as const };
      const { url } = await sglang({ replies: [reply] }, { tokenizerDir: folder.dir });
      const prompt = { text: '<|start|>user<|message|>Hi<|end|><|start|>assistant', sampling_params: { max_new_tokens: 64 } };
      const skipped = await generate(url, prompt);
      const kept = await generate(url, { ...prompt, sampling_params: { ...prompt.sampling_params, skip_special_tokens: false } });
      expect(kept.output_ids).toEqual(skipped.output_ids);
      expect(kept.text).toBe('<|channel|>analysis<|message|>Greet.<|end|><|start|>assistant<|channel|>final<|message|>Hello.');
      expect(skipped.text).toBe('analysisGreet.assistantfinalHello.');
      const streamed = await streamedFrames(url, { ...prompt, sampling_params: { ...prompt.sampling_params, skip_special_tokens: false } });
      expect(streamed.frames.at(-1)!.text).toBe(kept.text);
    } finally {
      folder.remove();
    }
  });
});
