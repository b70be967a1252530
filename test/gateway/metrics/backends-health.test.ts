import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../../../gateway/create-gateway.js';
import { createSimBackend, type SimBackendOptions } from '../../../sim/index.js';
import { closedPort } from '../../helpers/closed-port.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startSim(options: SimBackendOptions = {}): Promise<string> {
  const sim = await createSimBackend({ fast: true, ...options });
  if (options.serverVersion === '0.10.1') {
    // vLLM before 0.10.2: return_token_ids is ignored (its request models allow extra fields), no token-id fields come back
    sim.app.addHook('preHandler', async (request) => {
      if (request.body !== null && typeof request.body === 'object') delete (request.body as Record<string, unknown>).return_token_ids;
    });
  }
  const url = await sim.listen();
  cleanups.push(() => sim.close());
  return url;
}

/** A gateway listening, so its start-up probe has asked every replica. */
async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const gateway = createGateway({ db: ':memory:', port: 0, ...options });
  await gateway.listen();
  cleanups.push(() => gateway.close());
  return gateway;
}

async function healthz(gateway: Gateway): Promise<{ statusCode: number; body: Record<string, unknown> }> {
  const answer = await gateway.app.inject({ method: 'GET', url: '/healthz' });
  return { statusCode: answer.statusCode, body: answer.json() as Record<string, unknown> };
}

describe('/healthz reports the backends (issue 15)', () => {
  it('is unhealthy (503) while the one backend is down, no longer ok', async () => {
    const gateway = await startGateway({ backendUrl: `http://127.0.0.1:${await closedPort()}` });
    const { statusCode, body } = await healthz(gateway);
    expect(statusCode).toBe(503);
    expect(body).toMatchObject({
      status: 'unhealthy',
      backends: { up: 0, down: 1, draining: 0, withoutTokenIds: 0, replicas: [{ id: 'default', flavour: 'vllm', state: 'down', tokenIds: null }] },
    });
    const [replica] = (body.backends as { replicas: Array<{ lastError: string | null }> }).replicas;
    expect(replica!.lastError).toMatch(/ECONNREFUSED|refused/i);
  });

  it('is ok with every replica up and returning token ids', async () => {
    const gateway = await startGateway({ backends: [`vllm=${await startSim()}`, `sglang=${await startSim({ flavour: 'sglang' })}`] });
    const { statusCode, body } = await healthz(gateway);
    expect(statusCode).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      backends: {
        up: 2,
        down: 0,
        draining: 0,
        withoutTokenIds: 0,
        replicas: [
          { id: 'vllm-1', flavour: 'vllm', state: 'up', tokenIds: true, lastError: null },
          { id: 'sglang-1', flavour: 'sglang', state: 'up', tokenIds: true, lastError: null },
        ],
      },
    });
    // an open route: no replica's url or model name
    expect(JSON.stringify(body.backends)).not.toMatch(/127\.0\.0\.1|Qwen/);
  });

  it('is degraded (200) while one replica of a pool is down and another serves', async () => {
    const gateway = await startGateway({ backends: [`vllm=${await startSim()}`, `vllm=http://127.0.0.1:${await closedPort()}`] });
    const { statusCode, body } = await healthz(gateway);
    expect(statusCode).toBe(200);
    expect(body).toMatchObject({ status: 'degraded', backends: { up: 1, down: 1 } });
  });

  it('is degraded when a replica answers without token ids (its calls would record token_source: none)', async () => {
    const gateway = await startGateway({
      backends: [`vllm=${await startSim()}`, `vllm=${await startSim({ unrequestedTokenIds: 'absent', serverVersion: '0.10.1' })}`],
    });
    const { statusCode, body } = await healthz(gateway);
    expect(statusCode).toBe(200);
    expect(body).toMatchObject({
      status: 'degraded',
      backends: {
        up: 2,
        withoutTokenIds: 1,
        replicas: [
          { id: 'vllm-1', tokenIds: true },
          { id: 'vllm-2', tokenIds: false },
        ],
      },
    });
  });

  it("is unhealthy when one model's pool has no replica up, though another model is served", async () => {
    const gateway = await startGateway({
      backends: [
        { flavour: 'vllm', url: await startSim(), models: ['Qwen/Qwen3-8B'] },
        { id: 'reward', flavour: 'vllm', url: `http://127.0.0.1:${await closedPort()}`, models: ['reward-model'] },
      ],
    });
    const { statusCode, body } = await healthz(gateway);
    expect(statusCode).toBe(503);
    expect(body).toMatchObject({ status: 'unhealthy', backends: { up: 1, down: 1 } });
  });

  it('counts a drained replica as draining, not a fault; draining the last one of a pool is unhealthy', async () => {
    const adminToken = 'admin-token-for-the-health-test';
    const gateway = await startGateway({ adminToken, backends: [`vllm=${await startSim()}`, `vllm=${await startSim()}`] });
    const drain = (id: string) =>
      gateway.app.inject({ method: 'POST', url: `/tokentap/v1/backends/${id}/drain`, headers: { authorization: `Bearer ${adminToken}` } });
    expect((await drain('vllm-1')).statusCode).toBe(200);
    expect(await healthz(gateway)).toMatchObject({ statusCode: 200, body: { status: 'ok', backends: { up: 1, draining: 1, down: 0 } } });
    await drain('vllm-2');
    expect(await healthz(gateway)).toMatchObject({ statusCode: 503, body: { status: 'unhealthy', backends: { up: 0, draining: 2 } } });
  });
});
