import { describe, expect, it } from 'vitest';
import { GenerateToCompletion } from '../../../../gateway/backends/sglang/generate-to-completion.js';
import { TokenFaithfulAssembler } from '../../../../gateway/token-faithful/token-faithful-assembler.js';
import type { OutputParserOptions } from '../../../../gateway/token-faithful/output-parsers.js';

/**
 * `/generate` payloads exactly as SGLang's source builds them (no real streamed capture with logprobs exists,
 * shared/fixtures/vllm-captures/SOURCES.md "Looked for but not found"): tokenizer_manager.py `_handle_batch_output`
 * puts `{text, output_ids, meta_info}` in each event, meta_info's keys in its order (id, finish_reason, prompt_tokens,
 * weight_version, num_retractions, logprobs from logprob_ops.fill_meta_info, reasoning_tokens, completion_tokens,
 * cached_tokens), `[logprob, id, text]` triples with `return_text_in_logprobs`; the finishing event adds e2e_latency.
 */
const PROMPT = [151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198];
const IDS = [9707, 0, 151645];
const TEXTS = ['Hello', '!', '<|im_end|>'];
const LOGPROBS = [-0.25, -0.5, -0.01];

function meta(count: number, extra: Record<string, unknown> = {}, logprobs: [number, number] = [0, count]): Record<string, unknown> {
  return {
    id: '3feed15121284a7691868f0465ce5392',
    finish_reason: null,
    prompt_tokens: PROMPT.length,
    weight_version: 'step-12',
    num_retractions: 0,
    input_token_logprobs: [],
    output_token_logprobs: IDS.slice(...logprobs).map((id, index) => [LOGPROBS[logprobs[0] + index], id, TEXTS[logprobs[0] + index]]),
    output_token_logprobs_length: logprobs[1] - logprobs[0],
    reasoning_tokens: 0,
    completion_tokens: count,
    cached_tokens: 4,
    ...extra,
  };
}

const STOP = { finish_reason: { type: 'stop', matched: 151645 }, e2e_latency: 0.14 };

/** --incremental-streaming-output off (the default): text and output_ids hold everything so far */
function cumulativeStream(): Record<string, unknown>[] {
  return [
    { text: 'Hello', output_ids: IDS.slice(0, 1), meta_info: meta(1) },
    { text: 'Hello!', output_ids: IDS.slice(0, 2), meta_info: meta(2) },
    { text: 'Hello!', output_ids: IDS.slice(0, 3), meta_info: meta(3, STOP) },
  ];
}

/** --incremental-streaming-output: only the new text and ids, and meta_info's logprobs sliced to them */
function incrementalStream(): Record<string, unknown>[] {
  return [
    { text: 'Hello', output_ids: IDS.slice(0, 1), meta_info: meta(1, {}, [0, 1]) },
    { text: '!', output_ids: IDS.slice(1, 2), meta_info: meta(2, {}, [1, 2]) },
    { text: '', output_ids: IDS.slice(2, 3), meta_info: meta(3, STOP, [2, 3]) },
  ];
}

const PARSERS: OutputParserOptions = { reasoning: 'none', toolCalls: 'hermes', tools: [], parseToolCalls: false };

function assemble(
  payloads: Record<string, unknown>[],
  incrementalStreaming?: boolean,
): { assembler: TokenFaithfulAssembler; sent: Record<string, unknown>[] } {
  const assembler = new TokenFaithfulAssembler(
    PARSERS,
    new GenerateToCompletion({ promptIds: PROMPT, model: 'Qwen/Qwen3-8B', incrementalStreaming }),
  );
  const sent = payloads.map((payload) => {
    const copy = structuredClone(payload);
    assembler.add(copy);
    return copy;
  });
  return { assembler, sent };
}

describe('SGLang /generate read as vLLM /v1/completions', () => {
  it.each([
    ['cumulative', cumulativeStream, false],
    ['incremental', incrementalStream, true],
    ['incremental, the replica not known to be', incrementalStream, false],
  ])('joins a %s stream into the exact ids, logprobs, finish and usage', (_name, stream, hint) => {
    const { assembler, sent } = assemble(stream(), hint);
    const record = assembler.tokenRecord();
    expect(record).toMatchObject({
      tokenSource: 'backend',
      promptTokenIds: PROMPT,
      completionTokenIds: IDS,
      completionLogprobs: LOGPROBS,
      finishReason: 'stop',
      // SGLang names the EOS it stopped on, and keeps it in output_ids: the turn can be extended by it
      stopReason: 151645,
      usage: { promptTokens: PROMPT.length, completionTokens: 3, cachedTokens: 4 },
      weightVersion: 'step-12',
      flags: [],
    });
    // what the front door's renderer is handed: chat chunks, the text once, nothing of SGLang's own fields
    const contents = sent.map((chunk) => (chunk.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content ?? '');
    expect(contents.join('')).toBe('Hello!');
    for (const chunk of sent) expect(Object.keys(chunk)).not.toContain('meta_info');
    expect(sent[0]?.prompt_token_ids).toEqual(PROMPT);
    expect(sent[1]?.prompt_token_ids).toBeUndefined();
    expect(sent[2]).toMatchObject({ object: 'chat.completion.chunk', usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } });
    expect(assembler.assistantMessage()).toMatchObject({ role: 'assistant', content: 'Hello!' });
  });

  it('keeps only the ids that bring an incremental abort chunk up to completion_tokens (it re-sends the last one)', () => {
    const payloads = incrementalStream().slice(0, 2);
    payloads.push({ text: '', output_ids: [0], meta_info: meta(2, { finish_reason: { type: 'abort', message: 'Abort before prefill' } }, [2, 2]) });
    const record = assemble(payloads, true).assembler.tokenRecord();
    expect(record.completionTokenIds).toEqual([9707, 0]);
    expect(record.finishReason).toBe('abort');
    expect(record.stopReason).toBeNull();
    expect(record.flags).toEqual([]);
  });

  it('reads the real dsv4 smoke-test body (SOURCES.md 12): length finish, weight version, cached tokens', () => {
    // shared/fixtures/vllm-captures/sglang-generate-output_ids-meta_info-dsv4-smoke.txt, the response as stored
    const body = JSON.parse(
      '{"text":" pagklasipika","output_ids":[113899],"meta_info":{"id":"3005cf162aed45989a1eba1cba2edd36","finish_reason":{"type":"length","length":1},"prompt_tokens":4,"weight_version":"default","total_retractions":0,"completion_tokens":1,"cached_tokens":0,"e2e_latency":126.02402925491333,"response_sent_to_client_ts":1777208360.671939}}',
    ) as Record<string, unknown>;
    const assembler = new TokenFaithfulAssembler(PARSERS, new GenerateToCompletion({ promptIds: [1, 2, 3, 4], model: 'm' }));
    assembler.addBody(body);
    expect(assembler.tokenRecord()).toMatchObject({
      tokenSource: 'backend',
      promptTokenIds: [1, 2, 3, 4],
      completionTokenIds: [113899],
      // no logprobs were asked in that request
      completionLogprobs: null,
      finishReason: 'length',
      stopReason: null,
      usage: { promptTokens: 4, completionTokens: 1, cachedTokens: 0 },
      weightVersion: 'default',
      flags: [],
    });
    expect(body).toMatchObject({
      object: 'chat.completion',
      id: '3005cf162aed45989a1eba1cba2edd36',
      choices: [{ message: { content: ' pagklasipika' } }],
    });
    expect(body.meta_info).toBeUndefined();
  });

  it('flags prompt_ids_mismatch_usage when SGLang counts another prompt than the ids sent (--allow-auto-truncate)', () => {
    const body = { text: 'Hi', output_ids: [9707], meta_info: { ...meta(1, STOP), prompt_tokens: 5 } };
    const assembler = new TokenFaithfulAssembler(PARSERS, new GenerateToCompletion({ promptIds: PROMPT, model: 'm' }));
    assembler.addBody(body);
    expect(assembler.tokenRecord().flags).toContain('prompt_ids_mismatch_usage');
  });

  it('names a stop string as the stop reason (SGLang trims it from the text only): no single id ended the turn', () => {
    const body = {
      text: 'Hello',
      output_ids: [9707, 522, 9217, 29],
      meta_info: { ...meta(4), finish_reason: { type: 'stop', matched: '</answer>' } },
    };
    const assembler = new TokenFaithfulAssembler(PARSERS, new GenerateToCompletion({ promptIds: PROMPT, model: 'm' }));
    assembler.addBody(body);
    expect(assembler.tokenRecord()).toMatchObject({ completionTokenIds: [9707, 522, 9217, 29], finishReason: 'stop', stopReason: '</answer>' });
  });

  it('refuses a payload that is no /generate answer as TT_BACKEND_BAD_RESPONSE', () => {
    const assembler = new TokenFaithfulAssembler(PARSERS, new GenerateToCompletion({ promptIds: PROMPT, model: 'm' }));
    expect(() => assembler.addBody({ text: 'Hi' })).toThrow(expect.objectContaining({ code: 'TT_BACKEND_BAD_RESPONSE' }));
  });
});
