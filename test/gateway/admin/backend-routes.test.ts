import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../../gateway/create-gateway.js';
import { createSimBackend, type SimBackend } from '../../../sim/index.js';
import { closedPort } from '../../helpers/closed-port.js';

const ADMIN_TOKEN = 'admin-token-for-the-backends-api';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startSim(options: Parameters<typeof createSimBackend>[0] = {}): Promise<{ sim: SimBackend; url: string }> {
  const sim = await createSimBackend({ fast: true, ...options });
  const url = await sim.listen();
  cleanups.push(() => sim.close());
  return { sim, url };
}

/** A gateway in front of these backends, listening (so the start-up probe ran). */
async function startGateway(backends: string[], options: Parameters<typeof createGateway>[0] = {}): Promise<{ gateway: Gateway; url: string }> {
  const gateway = createGateway({ db: ':memory:', port: 0, adminToken: ADMIN_TOKEN, backends, ...options });
  const url = await gateway.listen();
  cleanups.push(() => gateway.close());
  return { gateway, url };
}

describe('the backends API: GET /tokentap/v1/backends, drain and undrain (issue 15)', () => {
  it('lists every replica with its state, load, models and what its probe found', async () => {
    const one = await startSim();
    const two = await startSim({ flavour: 'sglang' });
    const { gateway } = await startGateway([`vllm=${one.url}`, `sglang=${two.url}`]);
    const answer = await gateway.app.inject({ method: 'GET', url: '/tokentap/v1/backends', headers: admin });
    expect(answer.statusCode).toBe(200);
    const { backends } = answer.json() as { backends: Array<Record<string, unknown>> };
    expect(backends).toMatchObject([
      { id: 'vllm-1', flavour: 'vllm', url: one.url, state: 'up', models: ['Qwen/Qwen3-8B'], inFlight: 0, capabilities: { returnsTokenIds: true } },
      { id: 'sglang-1', flavour: 'sglang', url: two.url, state: 'up', models: ['Qwen/Qwen3-8B'], capabilities: { detectedFlavour: 'sglang' } },
    ]);
  });

  it('drains a replica (no new calls go there) and undrains it, answering its snapshot', async () => {
    const one = await startSim();
    const two = await startSim();
    const { gateway } = await startGateway([`vllm=${one.url}`, `vllm=${two.url}`]);
    const before = [one.sim.log.length, two.sim.log.length];
    const drained = await gateway.app.inject({ method: 'POST', url: '/tokentap/v1/backends/vllm-1/drain', headers: admin });
    expect(drained.statusCode).toBe(200);
    expect(drained.json()).toMatchObject({ id: 'vllm-1', state: 'draining', draining: true });
    for (let index = 0; index < 4; index++) {
      const call = await gateway.app.inject({
        method: 'POST',
        url: `/s/session-${index}/v1/chat/completions`,
        payload: { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 },
      });
      expect(call.statusCode, call.body).toBe(200);
    }
    // every call on the replica in service, none on the drained one
    expect([one.sim.log.length - before[0]!, two.sim.log.length - before[1]!]).toEqual([0, 4]);
    const undrained = await gateway.app.inject({ method: 'POST', url: '/tokentap/v1/backends/vllm-1/undrain', headers: admin });
    expect(undrained.json()).toMatchObject({ id: 'vllm-1', state: 'up', draining: false });
  });

  it('answers an unknown replica 404 TT_BACKEND_NOT_FOUND in the admin API shape, and refuses a caller without the admin token', async () => {
    const one = await startSim();
    const { gateway } = await startGateway([`vllm=${one.url}`]);
    for (const action of ['drain', 'undrain']) {
      const answer = await gateway.app.inject({ method: 'POST', url: `/tokentap/v1/backends/nope/${action}`, headers: admin });
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toEqual({ error: { code: 'TT_BACKEND_NOT_FOUND', message: "No backend replica 'nope' (replicas: vllm-1)" } });
    }
    const anonymous = await gateway.app.inject({ method: 'GET', url: '/tokentap/v1/backends' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: { code: 'TT_UNAUTHORIZED' } });
    const drainAnonymous = await gateway.app.inject({ method: 'POST', url: '/tokentap/v1/backends/vllm-1/drain' });
    expect(drainAnonymous.statusCode).toBe(401);
    expect(gateway.app.swagger()).toMatchObject({ paths: { '/tokentap/v1/backends': {}, '/tokentap/v1/backends/{id}/drain': {} } });
  });

  it('shows a replica that is down as down, with the reason', async () => {
    const one = await startSim();
    const port = await closedPort();
    const { gateway } = await startGateway([`vllm=${one.url}`, `vllm=http://127.0.0.1:${port}`]);
    const { backends } = (await gateway.app.inject({ method: 'GET', url: '/tokentap/v1/backends', headers: admin })).json() as {
      backends: Array<{ id: string; state: string; lastError: string | null }>;
    };
    expect(backends.map((replica) => [replica.id, replica.state])).toEqual([
      ['vllm-1', 'up'],
      ['vllm-2', 'down'],
    ]);
    expect(backends[1]!.lastError).toMatch(/ECONNREFUSED|refused/i);
  });
});
