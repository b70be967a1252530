import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRow } from '../../../store/types.js';
import { adminPost, sessionPlacedOn, startSimFleet, type SimFleet } from './fleet-fixtures.js';

const MODEL = 'Qwen/Qwen3-8B';
// about 30 tokens: at 10 tokens/s a stream on vllm-1 lasts three seconds, so it is in flight while the replica drains
const REPLY = 'One two three four five six seven eight nine ten, eleven twelve thirteen fourteen fifteen, and then some more words to say.';
const REPLICA_IDS = ['vllm-1', 'vllm-2', 'sglang-1'];

let fleet: SimFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

function client(session: string | null): OpenAI {
  return new OpenAI({
    baseURL: session === null ? `${fleet!.url}/v1` : fleet!.openaiBase(session),
    apiKey: 'unused',
    maxRetries: 0,
    timeout: 20_000,
  });
}

async function ask(session: string | null, maxTokens = 2): Promise<void> {
  await client(session).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: `Hello (${session})` }], max_tokens: maxTokens });
}

function lastCall(session: string): CallRow {
  const calls = fleet!.gateway.store.listCalls(session);
  return calls[calls.length - 1]!;
}

describe('draining a replica of the fleet (POST /tokentap/v1/backends/{id}/drain, issue 15)', () => {
  it('sends new calls and the sessions pinned there to the other replicas while its call in flight finishes, and undrain brings it back', async () => {
    const script = { replies: [{ content: REPLY, times: 'forever' as const }] };
    fleet = await startSimFleet([
      { flavour: 'vllm', sim: { fast: true, script, tokensPerSecond: 10 } },
      { flavour: 'vllm', sim: { fast: true, script } },
      { flavour: 'sglang', sim: { fast: true, script } },
    ]);
    const pinned = sessionPlacedOn('pinned', 'vllm-1', REPLICA_IDS);
    const flight = sessionPlacedOn('flight', 'vllm-1', REPLICA_IDS);
    await ask(pinned);
    expect(lastCall(pinned).backendId).toBe('vllm-1');

    const stream = await client(flight).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Stream it.' }], stream: true });
    const chunks = stream[Symbol.asyncIterator]();
    const first = await chunks.next();
    expect(first.done).toBe(false);

    const drained = await adminPost(fleet.url, '/tokentap/v1/backends/vllm-1/drain');
    expect(drained).toMatchObject({ status: 200, body: { id: 'vllm-1', state: 'draining', draining: true, inFlight: 1, sessionsPinned: 0 } });
    // draining is the operator's choice, not a fault
    expect(await (await fetch(`${fleet.url}/healthz`)).json()).toMatchObject({ status: 'ok', backends: { up: 2, draining: 1, down: 0 } });

    // the pinned session, a session hashed to the drained replica and calls without a session all go elsewhere
    const newcomer = sessionPlacedOn('newcomer', 'vllm-1', REPLICA_IDS);
    await ask(pinned);
    await ask(newcomer);
    for (let index = 0; index < 3; index++) await ask(null);
    const elsewhere = [lastCall(pinned), lastCall(newcomer), ...fleet.gateway.store.listCalls('default')];
    expect(elsewhere.map((call) => call.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    for (const call of elsewhere) expect(['vllm-2', 'sglang-1']).toContain(call.backendId);
    const movedTo = lastCall(pinned).backendId;

    // the call in flight on the drained replica ends whole
    let text = first.value!.choices[0]?.delta.content ?? '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) text += next.value.choices[0]?.delta.content ?? '';
    expect(text).toBe(REPLY);
    expect(fleet.gateway.store.listCalls(flight)[0]).toMatchObject({ status: 'ok', backendId: 'vllm-1' });
    expect((await fleet.backends()).find((replica) => replica.id === 'vllm-1')).toMatchObject({ state: 'draining', inFlight: 0, sessionsPinned: 0 });
    await ask(flight);
    expect(['vllm-2', 'sglang-1']).toContain(lastCall(flight).backendId);

    const undrained = await adminPost(fleet.url, '/tokentap/v1/backends/vllm-1/undrain');
    expect(undrained).toMatchObject({ status: 200, body: { id: 'vllm-1', state: 'up', draining: false } });
    // back in service: a new session hashed to it is placed there; the sessions that moved stay where they went
    const lateComer = sessionPlacedOn('late', 'vllm-1', REPLICA_IDS);
    await ask(lateComer);
    expect(lastCall(lateComer).backendId).toBe('vllm-1');
    await ask(pinned);
    expect(lastCall(pinned).backendId).toBe(movedTo);
  });
});
