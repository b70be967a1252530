import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimFleet, type ReplicaWanted, type SimFleet } from './fleet-fixtures.js';

const BIG = 'Qwen/Qwen3-8B';
const SMALL = 'Qwen/Qwen3-0.6B';
const script = { replies: [{ content: 'Served.', times: 'forever' as const }] };

/** Two pools: the 8B on a vLLM and an SGLang replica, the 0.6B on a vLLM replica (each simulator serves its one name). */
const TWO_POOLS: ReplicaWanted[] = [
  { flavour: 'vllm', sim: { fast: true, script, modelName: BIG } },
  { flavour: 'sglang', sim: { fast: true, script, modelName: BIG } },
  { flavour: 'vllm', sim: { fast: true, script, modelName: SMALL } },
];

let fleet: SimFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

function openai(session: string): OpenAI {
  return new OpenAI({ baseURL: fleet!.openaiBase(session), apiKey: 'unused', maxRetries: 0, timeout: 10_000 });
}

function anthropic(session: string): Anthropic {
  return new Anthropic({ baseURL: `${fleet!.url}/s/${session}`, apiKey: 'sk-ant-fake', maxRetries: 0, timeout: 10_000 });
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error,
  );
}

describe('a fleet serving several models (issue 15)', () => {
  it("routes each call to its model's pool, lists the union on /v1/models and answers an unknown model 404 in each protocol's shape", async () => {
    fleet = await startSimFleet(TWO_POOLS);
    const models = await openai('models').models.list();
    expect(models.data.map((model) => model.id)).toEqual([BIG, SMALL]);

    for (const [session, model] of [
      ['small', SMALL],
      ['big', BIG],
    ] as const) {
      for (const stream of [false, true]) {
        const request = { model, messages: [{ role: 'user' as const, content: `Hello (${stream ? 'streamed' : 'whole'}).` }], max_tokens: 8 };
        if (stream)
          for await (const chunk of await openai(session).chat.completions.create({ ...request, stream: true })) expect(chunk.model).toBe(model);
        else expect((await openai(session).chat.completions.create(request)).model).toBe(model);
      }
    }
    expect(fleet.gateway.store.listCalls('small').map((call) => [call.status, call.backendId])).toEqual([
      ['ok', 'vllm-2'],
      ['ok', 'vllm-2'],
    ]);
    const big = fleet.gateway.store.listCalls('big');
    expect(big.map((call) => call.status)).toEqual(['ok', 'ok']);
    expect(['vllm-1', 'sglang-1']).toContain(big[0]!.backendId);
    expect(big[1]!.backendId).toBe(big[0]!.backendId);

    const openAiError = await failure(
      openai('unknown-openai').chat.completions.create({ model: 'gpt-unknown', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    expect(openAiError).toBeInstanceOf(OpenAI.NotFoundError);
    expect((openAiError as InstanceType<typeof OpenAI.NotFoundError>).error).toEqual({
      message: `The model 'gpt-unknown' is not served by any backend (served: ${BIG}, ${SMALL})`,
      type: 'not_found_error',
      param: 'model',
      code: 'TT_MODEL_NOT_FOUND',
    });
    // the Anthropic client names a Claude model the fleet does not serve (no --model rewriting here)
    for (const stream of [false, true]) {
      const params = { model: 'claude-test', max_tokens: 16, messages: [{ role: 'user' as const, content: 'Hi' }] };
      const anthropicError = await failure(
        stream ? anthropic('unknown-anthropic').messages.stream(params).finalMessage() : anthropic('unknown-anthropic').messages.create(params),
      );
      expect(anthropicError).toBeInstanceOf(Anthropic.NotFoundError);
      expect((anthropicError as InstanceType<typeof Anthropic.NotFoundError>).error).toEqual({
        type: 'error',
        error: { type: 'not_found_error', message: `The model 'claude-test' is not served by any backend (served: ${BIG}, ${SMALL})` },
      });
    }
    const refused = [...fleet.gateway.store.listCalls('unknown-openai'), ...fleet.gateway.store.listCalls('unknown-anthropic')];
    expect(refused.map((call) => [call.frontDoor, call.status, call.backendId, call.error?.code])).toEqual([
      ['openai-chat', 'backend_error', null, 'TT_MODEL_NOT_FOUND'],
      ['anthropic-messages', 'backend_error', null, 'TT_MODEL_NOT_FOUND'],
      ['anthropic-messages', 'backend_error', null, 'TT_MODEL_NOT_FOUND'],
    ]);
    // nothing reached a replica for them: each simulator saw only the calls of its own model
    expect(fleet.records('vllm-2')).toHaveLength(2);
    expect(fleet.records('vllm-1').length + fleet.records('sglang-1').length).toBe(2);
  });

  it('routes by the model a call is sent with after --model rewriting', async () => {
    fleet = await startSimFleet(TWO_POOLS, { model: SMALL });
    const message = await anthropic('rewritten').messages.create({
      model: 'claude-test',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Served.' }]);
    expect(fleet.gateway.store.listCalls('rewritten').map((call) => [call.requestedModel, call.backendModel, call.backendId, call.status])).toEqual([
      ['claude-test', SMALL, 'vllm-2', 'ok'],
    ]);
  });
});
