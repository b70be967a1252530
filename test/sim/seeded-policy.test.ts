import { describe, expect, it } from 'vitest';
import type { SimGenerationRecord } from '../../sim/index.js';
import { postJson, startSim, WEATHER_TOOL } from './sim-test-helpers.js';

const CONVERSATIONS = ['Plan my day.', 'List three colors.', 'What should I test next?', 'Summarize the file.', 'Check the weather in Oslo.'];

async function runPolicy(seed: number): Promise<SimGenerationRecord[]> {
  const { sim, url } = await startSim({ seed });
  try {
    for (const question of CONVERSATIONS) {
      const response = await postJson(`${url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: question }],
        tools: [WEATHER_TOOL],
        logprobs: true,
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    return [...sim.log];
  } finally {
    await sim.close();
  }
}

function essence(records: SimGenerationRecord[]) {
  return records.map((record) => ({ ids: record.completionTokenIds, logprobs: record.logprobs, tools: record.toolCalls }));
}

describe('seeded random policy', () => {
  it('answers the same requests with the same tokens and logprobs for the same seed, differently for another', async () => {
    const first = await runPolicy(7);
    const again = await runPolicy(7);
    const other = await runPolicy(8);
    expect(essence(again)).toEqual(essence(first));
    expect(essence(other)).not.toEqual(essence(first));
  });

  it('thinks, calls offered tools with schema-fitting arguments, and ends turns with <|im_end|>', async () => {
    const records = await runPolicy(3);
    expect(records.every((record) => record.reasoning !== null && record.completionTokenIds.at(-1) === 151645)).toBe(true);
    const calls = records.flatMap((record) => record.toolCalls);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.name).toBe('get_weather');
      const parsed = JSON.parse(call.arguments) as Record<string, unknown>;
      expect(typeof parsed.city).toBe('string');
      if ('unit' in parsed) expect(['celsius', 'fahrenheit']).toContain(parsed.unit);
    }
    for (const record of records) {
      expect(record.finishReason).toBe(record.toolCalls.length > 0 ? 'tool_calls' : 'stop');
      expect(record.logprobs.every((logprob) => logprob < 0)).toBe(true);
    }
  });

  it('does not think when enable_thinking is false', async () => {
    const { sim, url } = await startSim({ seed: 1 });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, {
        messages: [{ role: 'user', content: 'Hi' }],
        chat_template_kwargs: { enable_thinking: false },
      });
      const body = (await response.json()) as Record<string, any>;
      expect(body.choices[0].message.reasoning).toBeNull();
      expect(sim.log[0]?.promptText?.endsWith('<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe(true);
      expect(sim.log[0]?.text).not.toContain('<think>');
    } finally {
      await sim.close();
    }
  });
});
