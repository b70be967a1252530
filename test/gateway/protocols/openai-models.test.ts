import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type GatewayOptions } from '../../../gateway/create-gateway.js';
import { createSimBackend, type SimBackendOptions } from '../../../sim/index.js';
import { closedPort } from '../../helpers/closed-port.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startSim(options: SimBackendOptions = {}): Promise<{ url: string; modelsAsked: () => number }> {
  const sim = await createSimBackend({ fast: true, ...options });
  let asked = 0;
  sim.app.addHook('onRequest', async (request) => {
    if (request.url === '/v1/models') asked += 1;
  });
  const url = await sim.listen();
  cleanups.push(() => sim.close());
  return { url, modelsAsked: () => asked };
}

async function startGateway(options: GatewayOptions): Promise<OpenAI> {
  const gateway = createGateway({ db: ':memory:', port: 0, ...options });
  const url = await gateway.listen();
  cleanups.push(() => gateway.close());
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
}

describe('GET /v1/models over a fleet (issue 15)', () => {
  it("lists the union of the replicas' models, each entry as a replica serving it reports it", async () => {
    const policyA = await startSim({ modelName: 'Qwen/Qwen3-8B', maxModelLen: 32768 });
    const policyB = await startSim({ modelName: 'Qwen/Qwen3-8B', maxModelLen: 32768 });
    const small = await startSim({ modelName: 'Qwen/Qwen3-0.6B', maxModelLen: 8192, flavour: 'sglang' });
    const client = await startGateway({ backends: [`vllm=${policyA.url}`, `vllm=${policyB.url}`, `sglang=${small.url}`] });
    const start = { a: policyA.modelsAsked(), b: policyB.modelsAsked(), small: small.modelsAsked() };
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toMatchObject([
      { id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 32768 },
      { id: 'Qwen/Qwen3-0.6B', object: 'model', max_model_len: 8192 },
    ]);
    // one replica per distinct model list was asked
    expect(policyA.modelsAsked() - start.a + policyB.modelsAsked() - start.b).toBe(1);
    expect(small.modelsAsked() - start.small).toBe(1);
  });

  it('lists a configured model whose replicas are down with a minimal entry, not an error', async () => {
    const policy = await startSim({ modelName: 'Qwen/Qwen3-8B' });
    const client = await startGateway({
      backends: [
        { flavour: 'vllm', url: policy.url, models: ['Qwen/Qwen3-8B'] },
        { id: 'reward', flavour: 'vllm', url: `http://127.0.0.1:${await closedPort()}`, models: ['reward-model'] },
      ],
    });
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models).toEqual([
      expect.objectContaining({ id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: expect.any(Number) }),
      { id: 'reward-model', object: 'model', created: expect.any(Number), owned_by: 'vllm' },
    ]);
  });
});
