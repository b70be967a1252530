import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../../reconstruct/index.js';
import type { CallRow } from '../../../store/types.js';
import { answerReply, orderedScript, STEP_TOOL, stepReply } from '../../token-faithful/token-faithful-fixtures.js';
import { expectCallMatchesItsReplica, sessionPlacedOn, startSimFleet, type SimFleet } from './fleet-fixtures.js';

const MODEL = 'Qwen/Qwen3-8B';
// about 30 tokens: at 10 tokens/s a call on vllm-1 takes three seconds, long enough to be cut on a loaded machine
const REPLY = 'One two three four five six seven eight nine ten, eleven twelve thirteen fourteen fifteen, and then some more words to say.';
const REPLICA_IDS = ['vllm-1', 'vllm-2', 'sglang-1', 'sglang-2'];

let fleet: SimFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

function client(session: string): OpenAI {
  return new OpenAI({ baseURL: fleet!.openaiBase(session), apiKey: 'unused', maxRetries: 0, timeout: 20_000 });
}

function ask(session: string, content: string, maxTokens = 64): Promise<OpenAI.Chat.ChatCompletion> {
  return client(session).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content }], max_tokens: maxTokens });
}

function lastCall(session: string): CallRow {
  const calls = fleet!.gateway.store.listCalls(session);
  return calls[calls.length - 1]!;
}

function retriesOf(call: CallRow): unknown[] {
  return (call.metadata.backendRetries as unknown[] | undefined) ?? [];
}

async function replicaState(id: string): Promise<string | undefined> {
  return (await fleet!.backends()).find((replica) => replica.id === id)?.state;
}

describe('a replica of the fleet killed mid-run (issue 15)', () => {
  it('fails the cut stream as a proper error, moves the calls not yet answered and the sessions to other replicas, and takes the replica back once it listens again', async () => {
    const script = { replies: [{ content: REPLY, times: 'forever' as const }] };
    fleet = await startSimFleet([
      // vllm-1 streams at 10 tokens/s, so a stream is still in flight when it dies
      { flavour: 'vllm', sim: { fast: true, script, tokensPerSecond: 10 } },
      { flavour: 'vllm', sim: { fast: true, script } },
      { flavour: 'sglang', sim: { fast: true, script } },
      { flavour: 'sglang', sim: { fast: true, script } },
    ]);
    const cut = sessionPlacedOn('cut', 'vllm-1', REPLICA_IDS);
    const waiting = sessionPlacedOn('waiting', 'vllm-1', REPLICA_IDS);
    const idle = sessionPlacedOn('idle', 'sglang-1', REPLICA_IDS);
    await ask(idle, 'First question.');
    expect(lastCall(idle).backendId).toBe('sglang-1');

    // a stream under way on vllm-1 (its first chunk reached the harness) and a whole-body call waiting for its answer
    const stream = await client(cut).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Stream it.' }], stream: true });
    const chunks = stream[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    const waitingAnswer = ask(waiting, 'Answer when you can.');
    await expect.poll(async () => (await fleet!.backends()).find((replica) => replica.id === 'vllm-1')?.inFlight).toBe(2);
    await fleet.kill('vllm-1');

    // the waiting call had received nothing: it went to another replica, and the harness never saw a failure
    expect((await waitingAnswer).choices[0]!.message.content).toBe(REPLY);
    const moved = lastCall(waiting);
    expect(moved).toMatchObject({ status: 'ok', backendId: expect.not.stringMatching(/^vllm-1$/) });
    expect(retriesOf(moved)).toEqual([{ attempt: 1, backendId: 'vllm-1', code: expect.any(String), waitMs: 0 }]);

    // the stream already under way reaches the harness as an error event, which the SDK raises
    const rest = (async () => {
      for (let next = await chunks.next(); !next.done; next = await chunks.next());
    })();
    await expect(rest).rejects.toBeInstanceOf(OpenAI.APIError);
    const cutCall = fleet.gateway.store.listCalls(cut)[0]!;
    expect(cutCall).toMatchObject({ status: 'backend_error', backendId: 'vllm-1', error: { code: 'TT_BACKEND_STREAM_CUT' } });

    // the session of the cut stream goes on elsewhere, on one replica
    for (const content of ['Again, please.', 'Once more.']) expect((await ask(cut, content)).choices[0]!.message.content).toBe(REPLY);
    const [, second, third] = fleet.gateway.store.listCalls(cut);
    expect(second!.backendId).not.toBe('vllm-1');
    expect(third!.backendId).toBe(second!.backendId);
    expect([second, third].map((call) => call!.status)).toEqual(['ok', 'ok']);

    // a replica killed while no call is on it: the session pinned there fails over on its next call, then stays put
    await fleet.kill('sglang-1');
    expect((await ask(idle, 'Second question.')).choices[0]!.message.content).toBe(REPLY);
    const failedOver = lastCall(idle);
    expect(failedOver.backendId).not.toBe('sglang-1');
    expect(retriesOf(failedOver)).toEqual([{ attempt: 1, backendId: 'sglang-1', code: 'ECONNREFUSED', waitMs: 0 }]);
    await ask(idle, 'Third question.');
    expect(lastCall(idle)).toMatchObject({ backendId: failedOver.backendId, status: 'ok' });
    expect(retriesOf(lastCall(idle))).toEqual([]);

    const degraded = (await (await fetch(`${fleet.url}/healthz`)).json()) as { status: string; backends: Record<string, unknown> };
    expect(degraded).toMatchObject({ status: 'degraded', backends: { up: 2, down: 2 } });
    expect(await replicaState('vllm-1')).toBe('down');

    // listening again on their ports, both are found by the health checks and take calls again
    await fleet.restart('vllm-1');
    await fleet.restart('sglang-1');
    await expect
      .poll(async () => (await fleet!.backends()).map((replica) => replica.state), { timeout: 20_000, interval: 250 })
      .toEqual(['up', 'up', 'up', 'up']);
    const healthy = (await (await fetch(`${fleet.url}/healthz`)).json()) as { status: string; backends: Record<string, unknown> };
    expect(healthy).toMatchObject({ status: 'ok', backends: { up: 4, down: 0 } });
    const fresh = sessionPlacedOn('fresh', 'vllm-1', REPLICA_IDS);
    await ask(fresh, 'Are you back?', 2);
    expect(lastCall(fresh)).toMatchObject({ backendId: 'vllm-1', status: 'ok' });
    // a session that moved keeps to its new replica when its old one is back (its prefix is cached there now)
    await ask(idle, 'Still there?');
    expect(lastCall(idle).backendId).toBe(failedOver.backendId);
  }, 60_000);

  for (const [from, to] of [
    ['sglang-1', 'vllm-1'],
    ['vllm-1', 'sglang-1'],
  ] as const) {
    it(`goes on with a token-faithful session on a replica of the other flavour (${from} killed, ${to} serves), token-exact and one sample`, async () => {
      fleet = await startSimFleet(
        [
          { flavour: 'sglang', sim: { seed: 1 } },
          { flavour: 'vllm', sim: { seed: 2 } },
        ],
        { tokenFaithful: ['*'], modelDir: qwen3TokenizerDir() },
      );
      fleet.replica(from).sim.setScript(orderedScript([stepReply(1), stepReply(2)]));
      fleet.replica(to).sim.setScript(orderedScript([answerReply('Both notes are read.')]));
      const session = sessionPlacedOn('faithful', from, ['sglang-1', 'vllm-1']);
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Read two notes.' }];
      let answer = '';
      for (let turn = 0; turn < 3; turn++) {
        if (turn === 2) await fleet.kill(from);
        const request = { model: MODEL, messages, tools: [STEP_TOOL] };
        const message = (await client(session).chat.completions.stream(request).finalChatCompletion()).choices[0]!.message;
        const toolCalls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
        messages.push({ role: 'assistant', content: message.content ?? '', ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
        for (const call of toolCalls) messages.push({ role: 'tool', tool_call_id: call.id, content: 'noted' });
        answer = message.content ?? '';
      }
      expect(answer.trim()).toBe('Both notes are read.');
      const calls = fleet.gateway.store.listCalls(session);
      expect(calls.map((call) => call.backendId)).toEqual([from, from, to]);
      expect(retriesOf(calls[2]!)).toEqual([{ attempt: 1, backendId: from, code: 'ECONNREFUSED', waitMs: 0 }]);
      expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend', 'extend']);
      for (const call of calls) expectCallMatchesItsReplica(fleet, call);
      // the token history is the gateway's: the other flavour's replica extends it id for id
      const samples = reconstructSession(fleet.gateway.store, session, { strategy: 'merge' });
      expect(samples).toHaveLength(1);
      expect(verifySample(samples[0]!, calls)).toEqual({ ok: true });
    });
  }

  it('records the request a failover to the other flavour sent, when it differs from the one recorded at begin', async () => {
    const script = { replies: [{ content: REPLY, times: 'forever' as const }] };
    fleet = await startSimFleet([
      { flavour: 'sglang', sim: { fast: true, script } },
      { flavour: 'vllm', sim: { fast: true, script } },
    ]);
    const session = sessionPlacedOn('whole-body', 'sglang-1', ['sglang-1', 'vllm-1']);
    await fleet.kill('sglang-1');
    // SGLang would have been asked this streamed chat whole; vLLM streams it: the call says what was sent
    let text = '';
    const stream = await client(session).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Stream it.' }], stream: true });
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(REPLY);
    const call = lastCall(session);
    expect(call).toMatchObject({ status: 'ok', backendId: 'vllm-1' });
    expect(call.metadata).toMatchObject({
      streamFromWholeBody: false,
      servedRequest: { backendId: 'vllm-1', path: '/v1/chat/completions', body: { stream: true, return_token_ids: true } },
    });
    expectCallMatchesItsReplica(fleet, call);
  });
});
