import { afterEach, describe, expect, it } from 'vitest';
import { buildGenerateRequest } from '../../../../gateway/backends/sglang/generate-request.js';
import { GenerateToCompletion } from '../../../../gateway/backends/sglang/generate-to-completion.js';
import { TokenFaithfulAssembler } from '../../../../gateway/token-faithful/token-faithful-assembler.js';
import { SseDecoder } from '../../../../core/sse/sse-decoder.js';
import { createSimBackend, type SimBackend, type SimGenerationRecord } from '../../../../sim/index.js';

// the simulator's SGLang flavour reads SGLang's source on its own (no code shared with gateway/backends/sglang):
// the two readings must agree id for id
const PROMPT = [151644, 872, 198, 13048, 151645, 198, 151644, 77091, 198];
const PARSERS = { reasoning: 'qwen3', toolCalls: 'hermes', tools: [], parseToolCalls: false } as const;

let sim: SimBackend | null = null;
afterEach(async () => {
  await sim?.close();
  sim = null;
});

async function generate(options: {
  stream: boolean;
  incremental: boolean;
}): Promise<{ assembler: TokenFaithfulAssembler; record: SimGenerationRecord }> {
  sim = await createSimBackend({ flavour: 'sglang', incrementalStreamingOutput: options.incremental, seed: 3 });
  let record: SimGenerationRecord | undefined;
  sim.on('generation', (generated) => (record = generated));
  const body = buildGenerateRequest({ model: 'Qwen/Qwen3-8B', max_tokens: 24, temperature: 0.7, top_logprobs: 2, stream: options.stream }, PROMPT);
  const response = await sim.app.inject({ method: 'POST', url: '/generate', payload: body });
  expect(response.statusCode).toBe(200);
  const assembler = new TokenFaithfulAssembler(PARSERS, new GenerateToCompletion({ promptIds: PROMPT, model: 'Qwen/Qwen3-8B' }));
  if (options.stream) {
    const events = new SseDecoder().push(response.body);
    expect(events.at(-1)?.data).toBe('[DONE]');
    for (const event of events.slice(0, -1)) assembler.add(JSON.parse(event.data) as Record<string, unknown>);
  } else {
    assembler.addBody(JSON.parse(response.body) as Record<string, unknown>);
  }
  if (record === undefined) throw new Error('the simulator recorded no generation');
  return { assembler, record };
}

describe('/generate through the SGLang-flavoured simulator', () => {
  it.each([
    { stream: false, incremental: false },
    { stream: true, incremental: false },
    { stream: true, incremental: true },
  ])('reads back exactly what it generated (%o)', async (options) => {
    const { assembler, record } = await generate(options);
    const tokens = assembler.tokenRecord();
    expect(tokens.promptTokenIds).toEqual(PROMPT);
    expect(tokens.completionTokenIds).toEqual(record.completionTokenIds);
    expect(tokens.completionLogprobs).toHaveLength(record.completionTokenIds.length);
    expect(tokens.completionLogprobs?.map((value) => Math.round(value * 1e4))).toEqual(record.logprobs.map((value) => Math.round(value * 1e4)));
    expect(tokens.finishReason).toBe(record.finishReason);
    expect(tokens.stopReason).toBe(record.stopReason);
    expect(tokens.usage).toMatchObject({ promptTokens: PROMPT.length, completionTokens: record.completionTokenIds.length });
    expect(tokens.flags).toEqual([]);
  });
});
