import { describe, expect, it } from 'vitest';
import { readCapture } from '../gateway/backends/vllm-captures.js';
import { postJson, startSim } from './sim-test-helpers.js';
import type { SimBackendOptions, SimScript } from '../../sim/index.js';

/**
 * The SGLang flavour builds its answers from SGLang's source (python/sglang/srt/entrypoints/, managers/), not from the
 * gateway's reading of them; these tests hold it to real SGLang output (test/fixtures/vllm-captures/sglang-*, see
 * SOURCES.md sections 11-13 in shared/fixtures/vllm-captures): the keys at each level in order, their types, null
 * versus absent. Values differ (another model, prompt and run) except where the scripted reply reproduces them.
 */

type Json = Record<string, any>;

/** A value's shape: objects keep their keys in order, arrays show their first element, other values their type. */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shape(item)]));
  return typeof value;
}

async function post(options: SimBackendOptions, script: SimScript, path: string, body: Json): Promise<Json> {
  const { sim, url } = await startSim({ flavour: 'sglang', ...options, script });
  try {
    const response = await postJson(`${url}${path}`, body);
    expect(response.status).toBe(200);
    return (await response.json()) as Json;
  } finally {
    await sim.close();
  }
}

/** capture 11: `jq`-printed JSON inside a markdown list (4-space indent), after the curl line */
function qwen25Capture(): Json {
  const lines = readCapture('sglang-generate-output_ids-meta_info-qwen25-05b.txt').split('\n');
  const start = lines.findIndex((line) => line.trim() === '{');
  return JSON.parse(lines.slice(start).join('\n')) as Json;
}

function lineStarting(fileName: string, prefix: string): Json {
  const line = readCapture(fileName)
    .split('\n')
    .find((entry) => entry.startsWith(prefix));
  if (line === undefined) throw new Error(`no ${prefix} line in ${fileName}`);
  return JSON.parse(line) as Json;
}

const PARIS = ' Paris. It is the largest city in France and the seat of its government, on the banks of the Seine river.';

describe('SGLang /generate against real captures', () => {
  it('answers a text prompt like the Qwen2.5 capture (current SGLang): text, output_ids, meta_info field for field', async () => {
    const captured = qwen25Capture();
    const body = await post({}, { replies: [{ text: PARIS }] }, '/generate', {
      text: 'The capital of France is',
      sampling_params: { temperature: 0, max_new_tokens: 12 },
    });
    expect(Object.keys(body)).toEqual(['text', 'output_ids', 'meta_info']);
    expect(shape(body)).toEqual(shape(captured));
    expect(body.meta_info.finish_reason).toEqual({ type: 'length', length: 12 });
    expect(body.output_ids).toHaveLength(12);
    expect(body.meta_info.completion_tokens).toBe(12);
    expect(body.meta_info.id).toMatch(/^[0-9a-f]{32}$/);
    expect(captured.meta_info.id).toMatch(/^[0-9a-f]{32}$/);
    expect(body.meta_info.weight_version).toBe(captured.meta_info.weight_version);
  });

  it('answers an input_ids prompt like the DeepSeek-V4 capture (April 2026, which named num_retractions total_retractions)', async () => {
    const captured = lineStarting('sglang-generate-output_ids-meta_info-dsv4-smoke.txt', '{"text"');
    const body = await post({}, { replies: [{ text: PARIS }] }, '/generate', {
      input_ids: [1, 2, 3, 4],
      sampling_params: { max_new_tokens: 1, temperature: 0 },
    });
    expect(body.meta_info.finish_reason).toEqual(captured.meta_info.finish_reason);
    expect(body.meta_info.prompt_tokens).toBe(captured.meta_info.prompt_tokens);
    expect(body.output_ids).toHaveLength(captured.output_ids.length);
    // the April build had neither reasoning_tokens, cached_tokens_details nor dp_rank; the rest is in the same order
    const newer = new Set(['reasoning_tokens', 'cached_tokens_details', 'dp_rank']);
    const ours = Object.keys(body.meta_info)
      .filter((key) => !newer.has(key))
      .map((key) => (key === 'num_retractions' ? 'total_retractions' : key));
    expect(ours).toEqual(Object.keys(captured.meta_info));
    const oursShape = shape(body.meta_info) as Json;
    for (const key of Object.keys(captured.meta_info).filter((entry) => entry !== 'total_retractions')) {
      expect(oursShape[key], key).toEqual((shape(captured.meta_info) as Json)[key]);
    }
  });
});

describe('SGLang /v1/chat/completions against the real capture', () => {
  it('answers like the Qwen2-VL capture: message fields, matched_stop, usage.reasoning_tokens, metadata.weight_version', async () => {
    const captured = lineStarting('sglang-chat-nonstream-matched_stop-qwen2vl-smoke.txt', '{"id"');
    const body = await post({}, { replies: [{ content: 'Hello!' }] }, '/v1/chat/completions', {
      model: 'qwen2-vl-7b',
      messages: [{ role: 'user', content: 'Say hello in one short sentence.' }],
      max_tokens: 64,
      temperature: 0,
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(shape(body)).toEqual(shape(captured));
    expect(body.choices[0]).toEqual(captured.choices[0]);
    expect(body.model).toBe('qwen2-vl-7b');
    expect(body.metadata).toEqual({ weight_version: 'default' });
    // "Hello" "!" and the end-of-turn token, as in the capture's 3 completion tokens
    expect(body.usage.completion_tokens).toBe(captured.usage.completion_tokens);
    expect(body.id).toMatch(/^[0-9a-f]{32}$/);
  });
});
