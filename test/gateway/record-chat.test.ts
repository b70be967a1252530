import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { runToolAgent } from '../../examples/tool-agent.js';
import type { SimScript } from '../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../helpers/expect-calls-match-sim.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { ELIDED_PROMPT_IDS } from '../../gateway/recorder/elide-prompt-ids.js';

/** Drives the example agent's tools: write a file, read it back, then answer. */
const TOOL_SCRIPT: SimScript = {
  replies: [
    {
      match: { lastUserContains: 'notes.txt' },
      reasoning: 'I should write the file first.',
      toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'tokens are the product' } }],
    },
    { match: { lastToolResultContains: 'wrote' }, toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] },
    { match: { lastToolResultContains: 'tokens are the product' }, content: 'notes.txt says: tokens are the product' },
  ],
  otherwise: 'error',
};

let setup: GatewayWithSim;
let workdir: ReturnType<typeof makeTempDir>;

beforeEach(async () => {
  setup = await startGatewayWithSim({ script: TOOL_SCRIPT });
  workdir = makeTempDir('tokentap-agent-');
});

afterEach(async () => {
  await setup.close();
  workdir.remove();
});

describe('the official openai client through the gateway, multi-turn with tools', () => {
  for (const stream of [false, true]) {
    it(`records every call token-exact against the simulator's own log (${stream ? 'streaming' : 'non-streaming'})`, async () => {
      const session = stream ? 'agent-stream' : 'agent-json';
      const result = await runToolAgent({
        baseURL: setup.openaiBase(session),
        model: 'Qwen/Qwen3-8B',
        task: 'Write notes.txt, read it back, then tell me what it says.',
        workdir: workdir.path,
        stream,
      });
      expect(result.answer).toBe('notes.txt says: tokens are the product');
      expect(result.turns).toBe(3);
      expect(readFileSync(workdir.file('notes.txt'), 'utf8')).toBe('tokens are the product');

      const calls = setup.gateway.store.listCalls(session);
      expect(calls.map((call) => call.status)).toEqual(['ok', 'ok', 'ok']);
      expect(calls.every((call) => call.stream === stream && call.frontDoor === 'openai-chat')).toBe(true);
      expectCallsMatchSim(calls, setup.sim.log);
      expect(setup.sim.log.map((record) => record.finishReason)).toEqual(['tool_calls', 'tool_calls', 'stop']);
      // each later prompt extends the earlier one's context: the recorded ids prove the turn structure
      const [first, second] = calls;
      expect(Array.from(second?.promptTokenIds ?? []).slice(0, 10)).toEqual(Array.from(first?.promptTokenIds ?? []).slice(0, 10));
      const bodies = setup.gateway.store.getCallBodies(calls[2]?.id ?? '');
      expect((bodies?.requestBody as { messages: unknown[] }).messages).toHaveLength(result.messages.length - 1);
      expect(bodies?.backendRequestBody).toMatchObject({ return_token_ids: true, logprobs: true });
      // prompt ids live packed in the call row once; bodies and streams do not repeat them (linear space)
      const promptIdsText = Array.from(calls[2]?.promptTokenIds ?? [])
        .slice(0, 40)
        .join(',');
      expect(JSON.stringify(bodies?.responseBody)).not.toContain(promptIdsText);
      expect(bodies?.responseStream ?? '').not.toContain(promptIdsText);
      if (stream) expect(bodies?.responseStream).toContain(ELIDED_PROMPT_IDS);
      else expect(bodies?.responseBody).toMatchObject({ prompt_token_ids: ELIDED_PROMPT_IDS });
      expect(calls[0]?.metadata).toMatchObject({ sessionSource: 'path' });
      expect(String(calls[0]?.metadata['user-agent'])).toMatch(/OpenAI/);
    });
  }
});

describe('what the harness sees', () => {
  it('gets an ordinary non-streamed response: no token ids, no logprobs it did not ask for, reasoning kept', async () => {
    const response = await fetch(`${setup.openaiBase('raw')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-harness-secret' },
      body: JSON.stringify({
        model: 'Qwen/Qwen3-8B',
        messages: [{ role: 'user', content: 'please write notes.txt' }],
        tools: [{ type: 'function', function: { name: 'write_file', parameters: { type: 'object' } } }],
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown> & { choices: Array<Record<string, unknown>> };
    expect(body).not.toHaveProperty('prompt_token_ids');
    expect(body.choices[0]).not.toHaveProperty('token_ids');
    expect(body.choices[0]?.logprobs).toBeNull();
    // vLLM's qwen3 parser keeps the newlines around the reasoning (the first streamed reasoning delta is "\n")
    expect(body.choices[0]?.message).toMatchObject({ reasoning: '\nI should write the file first.\n' });
    expect(response.headers.get('x-tokentap-call-id')).toBe(setup.gateway.store.listCalls('raw')[0]?.id);
  });

  it('gets the token ids and logprobs it asked for itself, identical to what is recorded', async () => {
    const client = new OpenAI({ baseURL: setup.openaiBase('asks-ids'), apiKey: 'x', maxRetries: 0 });
    const completion = (await client.chat.completions.create({
      model: 'Qwen/Qwen3-8B',
      messages: [{ role: 'user', content: 'notes.txt please' }],
      logprobs: true,
      top_logprobs: 2,
      // @ts-expect-error vLLM extension
      return_token_ids: true,
    })) as unknown as {
      prompt_token_ids: number[];
      choices: Array<{ token_ids: number[]; logprobs: { content: Array<{ logprob: number; top_logprobs: unknown[] }> } }>;
    };
    const call = setup.gateway.store.listCalls('asks-ids')[0];
    expect(completion.prompt_token_ids).toEqual(Array.from(call?.promptTokenIds ?? []));
    expect(completion.choices[0]?.token_ids).toEqual(Array.from(call?.completionTokenIds ?? []));
    expect(completion.choices[0]?.logprobs.content.map((entry) => Math.fround(entry.logprob))).toEqual(Array.from(call?.completionLogprobs ?? []));
    expect(completion.choices[0]?.logprobs.content[0]?.top_logprobs).toHaveLength(2);
  });
});

describe('other routes', () => {
  it('answers GET /v1/models from the backend, on both base URLs', async () => {
    for (const base of [`${setup.url}/v1`, setup.openaiBase('m')]) {
      const response = await fetch(`${base}/models`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: Array<{ id: string }> };
      expect(body.data.map((model) => model.id)).toContain('Qwen/Qwen3-8B');
    }
  });

  it('attributes a call to the x-tokentap-session header when the path names none', async () => {
    const response = await fetch(`${setup.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tokentap-session': 'by-header' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'notes.txt' }] }),
    });
    expect(response.status).toBe(200);
    expect(setup.gateway.store.listCalls('by-header')[0]?.metadata).toMatchObject({ sessionSource: 'header' });
  });
});
