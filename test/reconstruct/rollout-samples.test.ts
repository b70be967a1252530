import { afterEach, describe, expect, it } from 'vitest';
import { reconstructSession } from '../../reconstruct/reconstruct-session.js';
import { iterateSamples } from '../../reconstruct/iterate-samples.js';
import { verifySample } from '../../reconstruct/verify-sample.js';
import type { RolloutSession } from '../../gateway/rollouts/rollout-api.js';
import type { SimScript } from '../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import type { AssistantMessage } from './chat-through-gateway.js';

const READ_TOOL = {
  type: 'function',
  function: {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};

/** A tool call, then an answer: within one user turn the second prompt extends the first, so merge makes one sample. */
const SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: 'tokens' }, times: 'forever', reasoning: 'The file says it.', content: 'It says: tokens.' },
    {
      match: { lastUserContains: 'notes.txt' },
      times: 'forever',
      reasoning: 'I should read it.',
      toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }],
    },
  ],
  otherwise: 'error',
};

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** One chat call with the session key, as a harness does; the reply message as sent back in the history. */
async function chat(session: RolloutSession, messages: Array<Record<string, unknown>>): Promise<AssistantMessage> {
  const response = await fetch(`${session.openai.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session.apiKey}` },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages, tools: [READ_TOOL] }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { choices: Array<{ message: AssistantMessage }> }).choices[0]!.message;
}

/** Turn 1 under one version, the tool result's turn under the next: `between` runs in the middle. */
async function toolTurn(session: RolloutSession, between: () => Promise<unknown>): Promise<void> {
  const messages: Array<Record<string, unknown>> = [{ role: 'user', content: 'What does notes.txt say?' }];
  const first = await chat(session, messages);
  const call = first.tool_calls?.[0];
  if (call === undefined) throw new Error('no tool call');
  // sent back as vLLM returned it: reasoning kept, the whitespace-only content dropped (test/reconstruct/qwen3-thinking-trajectory)
  messages.push(
    { role: 'assistant', content: null, reasoning: first.reasoning, tool_calls: first.tool_calls },
    { role: 'tool', tool_call_id: call.id, content: 'tokens' },
  );
  await between();
  await chat(session, messages);
}

describe('samples of rollout sessions', () => {
  it('carry per-token policy versions across a version change mid-session (merge), set over HTTP', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT }, { adminToken: 'admin-token-for-tests-0123456789' });
    const { gateway, url } = setup;
    const setVersion = (version: string): Promise<Response> =>
      fetch(`${url}/tokentap/v1/policy-version`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: 'Bearer admin-token-for-tests-0123456789' },
        body: JSON.stringify({ version }),
      });
    await setVersion('step-1');
    const session = await gateway.createSession();
    await toolTurn(session, () => setVersion('step-2'));
    const calls = gateway.store.listCalls(session.id);
    const samples = reconstructSession(gateway.store, session.id, { strategy: 'merge' });
    expect(samples.map((sample) => sample.callIds)).toEqual([calls.map((call) => call.id)]);
    const [sample] = samples;
    const [first, second] = calls;
    const firstEnd = first!.promptTokenIds!.length + first!.completionTokenIds!.length;
    const expected = Array.from(sample!.tokens, (_, index) => {
      if (index >= first!.promptTokenIds!.length && index < firstEnd) return 'step-1';
      if (index >= second!.promptTokenIds!.length) return 'step-2';
      return null;
    });
    expect(sample!.policyVersions).toEqual(expected);
    expect(new Set(sample!.policyVersions)).toEqual(new Set([null, 'step-1', 'step-2']));
    expect(verifySample(sample!, calls)).toEqual({ ok: true });
    expect(sample!.status).toBe('in_progress');
  });

  it('carry the group, the session reward (with components), call rewards and the end status (library)', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT });
    const { gateway } = setup;
    const session = await gateway.createSession({ groupId: 'task-3' });
    await gateway.setPolicyVersion('v1');
    await toolTurn(session, () => gateway.setPolicyVersion('v2'));
    const [first, second] = gateway.store.listCalls(session.id);
    await session.reward(0.2);
    await session.reward({ correct: 1, format: 0.5 });
    await session.reward(-1, { callId: second!.id });
    await session.end('truncated');
    const [sample] = [...iterateSamples(gateway.store, { sessionIds: [session.id] })];
    expect(sample).toMatchObject({
      rolloutId: session.id,
      groupId: 'task-3',
      reward: 1.5,
      rewardComponents: { correct: 1, format: 0.5 },
      callRewards: [{ callId: second!.id, value: -1 }],
      status: 'truncated',
      callIds: [first!.id, second!.id],
    });
    expect(new Set(sample!.policyVersions)).toEqual(new Set([null, 'v1', 'v2']));
  });

  it('of sessions made by a base URL alone stay as they were: no group, no reward, the chain status', async () => {
    setup = await startGatewayWithSim({ script: SCRIPT });
    const response = await fetch(`${setup.openaiBase('plain')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'notes.txt?' }], tools: [READ_TOOL] }),
    });
    expect(response.status).toBe(200);
    const [sample] = reconstructSession(setup.gateway.store, 'plain');
    expect(sample).toMatchObject({ rolloutId: 'plain', status: 'completed' });
    expect(sample).not.toHaveProperty('groupId');
    expect(sample).not.toHaveProperty('reward');
  });
});
