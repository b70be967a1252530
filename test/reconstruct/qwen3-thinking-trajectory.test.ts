import { afterEach, describe, expect, it } from 'vitest';
import { reconstructSessionReport } from '../../reconstruct/reconstruct-session.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { verifySample } from '../../reconstruct/verify-sample.js';
import type { SimScript } from '../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { chatThroughGateway, type AssistantMessage } from './chat-through-gateway.js';

const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());

const READ_TOOL = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};

/**
 * Each turn: the user asks, the model thinks and calls read_file, the tool answers, the model thinks and answers.
 * One entry per reply (each answers once): the last tool result of a turn stays the last tool message of the next.
 */
const SCRIPT: SimScript = {
  replies: Array.from({ length: 20 }, (_, index) => [
    {
      match: { lastUserContains: `turn ${index + 1}:` },
      reasoning: 'I should read the file first.',
      toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
    },
    { match: { lastToolResultContains: `at turn ${index + 1}.` }, reasoning: 'The file says what I need.', content: 'The file is fine.' },
  ]).flat(),
  otherwise: 'error',
};

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** The harness sends each reply back with its reasoning (as vLLM returned it) and without the whitespace content. */
function historyMessage(message: AssistantMessage): Record<string, unknown> {
  const blank = message.content === null || message.content.trim() === '';
  return {
    role: 'assistant',
    content: blank ? null : message.content,
    reasoning: message.reasoning,
    ...(message.tool_calls === undefined ? {} : { tool_calls: message.tool_calls }),
  };
}

async function runTurns(base: string, turns: number, extra: Record<string, unknown>): Promise<void> {
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: 'You are a careful coding agent.' }];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({ role: 'user', content: `This is turn ${turn}: check notes.txt again.` });
    const toolTurn = await chatThroughGateway(base, { messages, tools: [READ_TOOL], ...extra }, turn % 2 === 0);
    const call = toolTurn.tool_calls?.[0];
    if (call === undefined) throw new Error(`turn ${turn}: no tool call`);
    messages.push(historyMessage(toolTurn), { role: 'tool', tool_call_id: call.id, content: `contents of notes.txt at turn ${turn}.` });
    messages.push(historyMessage(await chatThroughGateway(base, { messages, tools: [READ_TOOL], ...extra }, turn % 2 === 1)));
  }
}

describe('a 20-turn Qwen3 tool trajectory through the gateway and the simulator (plain mode)', () => {
  it('thinking on: merges within each turn and breaks at each new turn as template-rerender (earlier <think> dropped)', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT });
    await runTurns(setup.openaiBase('thinking'), 20, {});
    const store = setup.gateway.store;
    const calls = store.listCalls('thinking');
    expect(calls).toHaveLength(40);
    const report = reconstructSessionReport(store, 'thinking', { tokenizer });
    expect(report.samples.map((sample) => sample.callIds)).toEqual(
      Array.from({ length: 20 }, (_, turn) => [calls[2 * turn]!.id, calls[2 * turn + 1]!.id]),
    );
    expect(report.drift).toHaveLength(19);
    for (const [index, diagnostic] of report.drift.entries()) {
      expect(diagnostic).toMatchObject({ kind: 'template-rerender', callId: calls[2 * index + 2]!.id, againstCallId: calls[2 * index + 1]!.id });
      // the earlier turn's reasoning was in the prompt it was sampled under, and is gone from the next one
      expect(diagnostic.expected.text).toMatch(/^<think>\nI should read the file first\.\n<\/think>/);
      expect(diagnostic.actual.text).toMatch(/^<tool_call>/);
    }
    expect(report.samples.map((sample) => sample.lossWeight)).toEqual(Array(20).fill(1 / 20));
    for (const sample of report.samples) expect(verifySample(sample, calls)).toEqual({ ok: true });
    const perCall = reconstructSessionReport(store, 'thinking', { strategy: 'per-call' });
    expect(perCall.samples).toHaveLength(40);
    for (const sample of perCall.samples) expect(verifySample(sample, calls)).toEqual({ ok: true });
  });

  it('thinking off: every call breaks, since the empty <think></think> of the generation prompt is not rendered back', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT });
    await runTurns(setup.openaiBase('no-thinking'), 3, { chat_template_kwargs: { enable_thinking: false } });
    const report = reconstructSessionReport(setup.gateway.store, 'no-thinking', { tokenizer });
    expect(report.samples).toHaveLength(6);
    expect(report.drift.map((diagnostic) => diagnostic.kind)).toEqual(Array(5).fill('template-rerender'));
    expect(report.drift[0]?.expected.text).toMatch(/^<think>\n\n<\/think>\n\n<tool_call>/);
  });
});
