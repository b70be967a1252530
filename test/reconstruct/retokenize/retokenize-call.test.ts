import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolAgent } from '../../../examples/tool-agent.js';
import { createRetokenizer } from '../../../reconstruct/retokenize/create-retokenizer.js';
import { retokenizeCall, tryRetokenizeCall, type RetokenizedCall } from '../../../reconstruct/retokenize/retokenize-call.js';
import type { Retokenizer } from '../../../reconstruct/retokenize/retokenizer.js';
import { qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import type { SimScript } from '../../../sim/index.js';
import type { CallBodies, CallRow } from '../../../store/types.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const SCRIPT: SimScript = {
  replies: [
    // tool results first: the last user message of the loop still names notes.txt
    { match: { lastToolResultContains: 'tokens are the product' }, times: 'forever', content: 'notes.txt says: tokens are the product' },
    { match: { lastToolResultContains: 'wrote' }, times: 'forever', toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
    {
      match: { lastUserContains: 'notes.txt' },
      times: 'forever',
      reasoning: 'I should write the file first.',
      toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'tokens are the product' } }],
    },
    {
      match: { lastUserContains: 'two calls' },
      times: 'forever',
      content: 'Checking both.',
      toolCalls: [
        { name: 'read_file', arguments: { path: 'a' } },
        { name: 'read_file', arguments: { path: 'b' } },
      ],
    },
    {
      match: { lastUserContains: 'compact' },
      times: 'forever',
      reasoning: 'Use the tool.',
      toolCalls: [{ name: 'read_file', arguments: '{"path":"a"}' }],
    },
    { match: { lastUserContains: 'think long' }, times: 'forever', reasoning: 'A long chain of thought that goes on and on.', content: 'Done.' },
    { match: { lastUserContains: 'plain' }, times: 'forever', reasoning: 'Only when thinking is on.', content: 'Hello world. Bye now.' },
    { match: { endpoint: 'completions' }, times: 'forever', text: ' Paris, of course.' },
  ],
  otherwise: 'error',
};

const READ_TOOL = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
];

let setup: GatewayWithSim;
let qwen3: Retokenizer;

beforeAll(async () => {
  [setup, qwen3] = await Promise.all([startGatewayWithSim({ script: SCRIPT }), createRetokenizer({ kind: 'hf', directory: qwen3TokenizerDir() })]);
});

afterAll(async () => {
  await setup.close();
});

/** Posts a body to the gateway's session and returns the call it recorded. */
async function record(session: string, body: Record<string, unknown>, endpoint = 'chat/completions'): Promise<{ call: CallRow; bodies: CallBodies }> {
  const response = await fetch(`${setup.openaiBase(session)}/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', ...body }),
  });
  await response.text();
  const call = setup.gateway.store.listCalls(session).at(-1);
  const bodies = call === undefined ? null : setup.gateway.store.getCallBodies(call.id);
  if (call === undefined || bodies === null) throw new Error('nothing recorded');
  return { call, bodies };
}

function retokenized(call: CallRow, bodies: CallBodies, tokenizer = qwen3): RetokenizedCall {
  const result = tryRetokenizeCall(call, bodies, tokenizer);
  if (result.source === 'refused') throw new Error(`refused (${result.reason}): ${result.detail}`);
  return result;
}

function expectSameIds(call: CallRow, result: RetokenizedCall): void {
  expect(Array.from(result.promptTokenIds)).toEqual(Array.from(call.promptTokenIds ?? []));
  expect(Array.from(result.completionTokenIds)).toEqual(Array.from(call.completionTokenIds ?? []));
}

describe('retokenizing calls recorded through the simulator (real Qwen3 ids) from their stored bodies', () => {
  for (const stream of [false, true]) {
    it(`reproduces the recorded prompt and completion ids of every turn of a tool agent (${stream ? 'streamed' : 'not streamed'})`, async () => {
      const workdir = makeTempDir('tokentap-retokenize-');
      const session = `agent-${String(stream)}`;
      try {
        await runToolAgent({
          baseURL: setup.openaiBase(session),
          model: 'Qwen/Qwen3-8B',
          task: 'Write notes.txt, read it back, then tell me what it says.',
          workdir: workdir.path,
          stream,
        });
      } finally {
        workdir.remove();
      }
      const calls = setup.gateway.store.listCalls(session);
      expect(calls.map((call) => call.finishReason)).toEqual(['tool_calls', 'tool_calls', 'stop']);
      for (const call of calls) {
        const result = retokenized(call, setup.gateway.store.getCallBodies(call.id) as CallBodies);
        expectSameIds(call, result);
        expect(result.source).toBe('retokenized');
        expect(result.tokenizer).toEqual({ name: qwen3.name, hash: qwen3.hash });
      }
    });
  }

  it('reproduces content before two tool calls, a reply with thinking switched off, and a stop token id', async () => {
    for (const stream of [false, true]) {
      const twoCalls = await record('replies', { messages: [{ role: 'user', content: 'two calls please' }], tools: READ_TOOL, stream });
      expect(qwen3.decode(twoCalls.call.completionTokenIds ?? [])).toContain('Checking both.\n<tool_call>');
      expectSameIds(twoCalls.call, retokenized(twoCalls.call, twoCalls.bodies));
      const noThinking = await record('replies', {
        messages: [{ role: 'user', content: 'plain' }],
        chat_template_kwargs: { enable_thinking: false },
        stream,
      });
      expectSameIds(noThinking.call, retokenized(noThinking.call, noThinking.bodies));
      // "." is 13: vLLM ends on it with stop_reason 13 and keeps it in the text (not a special token)
      const stopId = await record('replies', { messages: [{ role: 'user', content: 'plain' }], stop_token_ids: [13], stream });
      expect(stopId.call.stopReason).toBe(13);
      expectSameIds(stopId.call, retokenized(stopId.call, stopId.bodies));
    }
  });

  it('reproduces a reply cut by max_tokens inside its reasoning: no </think> and no end-of-turn token', async () => {
    for (const stream of [false, true]) {
      const { call, bodies } = await record('cut', { messages: [{ role: 'user', content: 'think long' }], max_tokens: 5, stream });
      expect(call.finishReason).toBe('length');
      const result = retokenized(call, bodies);
      expectSameIds(call, result);
      expect(qwen3.decode(result.completionTokenIds)).toBe('<think>\nA long chain');
    }
  });

  it('reproduces completions-endpoint calls with a string prompt and with a token-id prompt', async () => {
    const text = await record('completions', { prompt: 'The capital of France is', max_tokens: 32 }, 'completions');
    // the model ended by itself: the end-of-text id is the config's eos_token, appended after the text
    expect(text.call.finishReason).toBe('stop');
    expectSameIds(text.call, retokenized(text.call, text.bodies));
    const ids = await record('completions', { prompt: [785, 6722, 315, 9625, 374], max_tokens: 3, stream: true }, 'completions');
    expect(ids.call.finishReason).toBe('length');
    expectSameIds(ids.call, retokenized(ids.call, ids.bodies));
  });

  it('gives back the template layout to a server that strips the newlines around reasoning', async () => {
    const { call, bodies } = await record('stripped', { messages: [{ role: 'user', content: 'think long' }] });
    const body = structuredClone(bodies.responseBody) as { choices: Array<{ message: { reasoning: string; content: string } }> };
    const message = body.choices[0]?.message;
    if (message === undefined) throw new Error('no message');
    expect(message).toMatchObject({ reasoning: '\nA long chain of thought that goes on and on.\n', content: '\n\nDone.' });
    message.reasoning = message.reasoning.trim();
    message.content = message.content.trim();
    expectSameIds(call, retokenized(call, { ...bodies, responseBody: body }));
  });
});

describe('drift: where the text does not give back the sampled ids', () => {
  it('differs only in the arguments when the server re-serialized compact tool-call JSON (non-streamed vLLM), not when streamed', async () => {
    const plain = await record('drift', { messages: [{ role: 'user', content: 'compact' }], tools: READ_TOOL });
    const result = retokenized(plain.call, plain.bodies);
    // the prompt is rendered exactly; the model wrote {"path":"a"} and vLLM's hermes parser answered json.dumps' {"path": "a"}
    expect(Array.from(result.promptTokenIds)).toEqual(Array.from(plain.call.promptTokenIds ?? []));
    expect(qwen3.decode(plain.call.completionTokenIds ?? [])).toContain('"arguments": {"path":"a"}}');
    expect(qwen3.decode(result.completionTokenIds)).toContain('"arguments": {"path": "a"}}');
    expect(qwen3.decode(result.completionTokenIds).replace('{"path": "a"}', '{"path":"a"}')).toBe(qwen3.decode(plain.call.completionTokenIds ?? []));
    // streamed, vLLM passes the raw arguments text through, so the ids come back exactly
    const streamed = await record('drift', { messages: [{ role: 'user', content: 'compact' }], tools: READ_TOOL, stream: true });
    expectSameIds(streamed.call, retokenized(streamed.call, streamed.bodies));
  });

  it('refuses a call that ended on a stop string: the server cut the sampled stop text from the reply', async () => {
    const { call, bodies } = await record('stop-string', { messages: [{ role: 'user', content: 'plain' }], stop: [' Bye'] });
    expect(qwen3.decode(call.completionTokenIds ?? [])).toMatch(/ Bye$/);
    expect(tryRetokenizeCall(call, bodies, qwen3)).toMatchObject({ source: 'refused', reason: 'stop-string' });
    expect(retokenizeCall(call, bodies, qwen3)).toBeNull();
  });

  it('refuses chat calls to a plain encoding with no chat format, and calls that never finished', async () => {
    const { call, bodies } = await record('refusals', { messages: [{ role: 'user', content: 'plain' }] });
    const o200k = await createRetokenizer({ kind: 'tiktoken', encoding: 'o200k_base' });
    expect(tryRetokenizeCall(call, bodies, o200k)).toMatchObject({ source: 'refused', reason: 'no-chat-format' });
    expect(tryRetokenizeCall({ ...call, status: 'incomplete' }, bodies, qwen3)).toMatchObject({ source: 'refused', reason: 'call-not-finished' });
    expect(tryRetokenizeCall(call, { ...bodies, responseBody: { choices: [] } }, qwen3)).toMatchObject({ source: 'refused', reason: 'no-response' });
  });
});
