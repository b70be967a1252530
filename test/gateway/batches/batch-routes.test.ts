import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPORT_SCHEMA_VERSION, tokentapVersion } from '../../../export/export-provenance.js';
import { qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { ADMIN_TOKEN, api, startRolloutGateway } from '../rollouts/rollout-test-helpers.js';
import { nextPullHandler, pull, runGroup, type ErrorAnswer } from './batch-test-helpers.js';
import { setRawRewardValue } from '../../helpers/poison-rewards.js';

const SIM = { script: { replies: [{ times: 'forever' as const, content: 'The answer is 4.' }] } };

let setup: GatewayWithSim | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await setup?.close();
  setup = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function start(): Promise<GatewayWithSim> {
  setup = await startRolloutGateway(SIM);
  return setup;
}

describe('GET /tokentap/v1/batches', () => {
  it('a long poll answers once minGroups groups are complete, with their rows in the format', async () => {
    const gateway = await start();
    const waiting = nextPullHandler('end');
    const polling = pull(gateway, { format: 'verl', minGroups: '2', waitMs: '30000' });
    await waiting;
    let answered = false;
    void polling.then(() => {
      answered = true;
    });
    await runGroup(gateway, 'task-a', [0, 1]);
    expect(answered).toBe(false);
    await runGroup(gateway, 'task-b', [1, 1]);
    const batch = await polling;
    expect(batch.status).toBe(200);
    expect(batch.body.groups).toEqual(['task-a', 'task-b']);
    expect(batch.body.format).toBe('verl');
    expect(batch.body.leaseExpiresAt).toBeGreaterThan(Date.now());
    expect(batch.body.rows.map((row) => row.uid)).toEqual(['task-a', 'task-a', 'task-b', 'task-b']);
    const [worse, better] = batch.body.rows as Array<{ advantage: number; reward: number; prompt_ids: unknown; response_mask: unknown }>;
    expect([worse?.reward, better?.reward]).toEqual([0, 1]);
    expect(Math.sign(worse?.advantage ?? 0)).toBe(-1);
    expect(Math.sign(better?.advantage ?? 0)).toBe(1);
    expect(Array.isArray(worse?.prompt_ids) && Array.isArray(worse.response_mask)).toBe(true);
    expect(batch.body.summary).toMatchObject({ groups: 2, sessions: 4, samples: 4 });
    expect(batch.body.provenance).toEqual({
      schema_version: EXPORT_SCHEMA_VERSION,
      tokentap_version: tokentapVersion(),
      tokenizer_hash: 'unknown',
      chat_template_hash: 'unknown',
    });
    expect(tokentapVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("carries the provenance a file export writes: the hashes of the gateway's modelDir tokenizer and chat template", async () => {
    const modelDir = qwen3TokenizerDir();
    setup = await startRolloutGateway(SIM, { modelDir });
    await runGroup(setup, 'task-a', [1]);
    const { provenance } = (await pull(setup, { format: 'verl', waitMs: '0' })).body;
    const sha256 = (bytes: Buffer | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    const template = (JSON.parse(readFileSync(join(modelDir, 'tokenizer_config.json'), 'utf8')) as { chat_template: string }).chat_template;
    expect(provenance.tokenizer_hash).toBe(sha256(readFileSync(join(modelDir, 'tokenizer.json'))));
    expect(provenance.chat_template_hash).toBe(sha256(template));
  });

  it('serves a format in its JSONL form: chat-text rows read from the stored bodies, Tinker as nested Datums', async () => {
    const gateway = await start();
    await runGroup(gateway, 'task-a', [1]);
    const sft = (await pull(gateway, { format: 'sft-messages', waitMs: '0' })).body;
    expect(sft.rows).toEqual([
      {
        messages: [
          { role: 'user', content: 'task task-a' },
          { role: 'assistant', content: 'The answer is 4.' },
        ],
      },
    ]);
    await api(gateway, 'POST', `/batches/${sft.batchId}/release`, { body: {} });
    const [datum] = (await pull(gateway, { format: 'tinker', waitMs: '0' })).body.rows as Array<{ model_input: unknown; loss_fn_inputs: unknown }>;
    expect(Object.keys(datum ?? {})).toEqual(['model_input', 'loss_fn_inputs']);
  });

  it('leaves out a rollout whose stored reward is Infinity, counted invalid_reward; never serves reward null (issue 12)', async () => {
    const temp = makeTempDir();
    cleanups.push(temp.remove);
    setup = await startRolloutGateway(SIM, { db: temp.file('poisoned.db') });
    await runGroup(setup, 'task-a', [0, 1, 1]);
    // what the attack left in an older store: the components 1.7e308 + 1.7e308 summed to Infinity
    setRawRewardValue(temp.file('poisoned.db'), 'task-a-r1', Infinity);
    const verl = await pull(setup, { format: 'verl', waitMs: '0' });
    expect(verl.status).toBe(200);
    expect(verl.body.groups).toEqual(['task-a']);
    const rows = verl.body.rows as Array<{ reward: unknown; advantage: unknown }>;
    expect(rows.map((row) => row.reward)).toEqual([0, 1]);
    // the baseline is over the two rollouts kept: rewards 0 and 1
    expect(rows.map((row) => row.advantage)).toEqual([expect.closeTo(-Math.SQRT1_2, 5), expect.closeTo(Math.SQRT1_2, 5)]);
    expect(verl.body.summary).toMatchObject({ sessions: 2, samples: 2, dropped: { invalid_reward: 1 } });
    await api(setup, 'POST', `/batches/${verl.body.batchId}/release`, { body: {} });
    const generic = await pull(setup, { format: 'jsonl', waitMs: '0' });
    expect((generic.body.rows as Array<{ reward: unknown }>).map((row) => row.reward)).toEqual([0, 1]);
  });

  it('counts in its summary the rollouts a filter leaves out and the groups whose rewards are all equal, as a file export does (issue 14)', async () => {
    const gateway = await start();
    await runGroup(gateway, 'task-a', [0, 1, 1]);
    await runGroup(gateway, 'task-b', [1, 1]);
    const batch = await pull(gateway, { format: 'verl', minGroups: '2', waitMs: '0', rewardMin: '0.5' });
    expect(batch.status).toBe(200);
    // task-a keeps its two rollouts of reward 1: both groups are then without spread
    expect(batch.body.summary).toMatchObject({ sessions: 4, samples: 4, dropped: { filter_reward_min: 1 }, zeroVarianceGroups: 2 });
  });

  it('answers 204 when waitMs passes before minGroups groups are complete', async () => {
    const gateway = await start();
    await runGroup(gateway, 'task-a', [1]);
    expect((await pull(gateway, { format: 'verl', minGroups: '2', waitMs: '0' })).status).toBe(204);
    expect((await pull(gateway, { format: 'verl', minGroups: '2', waitMs: '50' })).status).toBe(204);
    expect((await pull(gateway, { format: 'verl', minGroups: '1', waitMs: '0' })).body.groups).toEqual(['task-a']);
  });

  it('two waiting consumers get disjoint groups', async () => {
    const gateway = await start();
    const firstWaiting = nextPullHandler('end');
    const first = pull(gateway, { format: 'jsonl', consumer: 'one' });
    await firstWaiting;
    const secondWaiting = nextPullHandler('end');
    const second = pull(gateway, { format: 'jsonl', consumer: 'two' });
    await secondWaiting;
    await runGroup(gateway, 'task-a', [0, 1]);
    await runGroup(gateway, 'task-b', [0, 1]);
    const [one, two] = [(await first).body, (await second).body];
    expect([one.consumer, one.groups, two.consumer, two.groups]).toEqual(['one', ['task-a'], 'two', ['task-b']]);
    expect(one.rows.map((row) => row.group_id)).toEqual(['task-a', 'task-a']);
    expect((await pull(gateway, { format: 'jsonl', waitMs: '0' })).status).toBe(204);
  });

  it('an ack consumes the groups: later pulls never see them, also after a restart on the same database', async () => {
    const temp = makeTempDir();
    cleanups.push(temp.remove);
    const db = temp.file('tokentap.db');
    setup = await startGatewayWithSim(SIM, { adminToken: ADMIN_TOKEN, db });
    await runGroup(setup, 'task-a', [0, 1]);
    await runGroup(setup, 'task-b', [0, 1]);
    const batch = (await pull(setup, { format: 'verl', waitMs: '0' })).body;
    expect(batch.groups).toEqual(['task-a']);
    const ack = await api(setup, 'POST', `/batches/${batch.batchId}/ack`, { body: {} });
    expect([ack.status, ack.body]).toMatchObject([200, { batchId: batch.batchId, groups: ['task-a'], consumer: 'default' }]);
    // a retried ack is safe
    expect((await api(setup, 'POST', `/batches/${batch.batchId}/ack`, { body: {} })).status).toBe(200);
    const held = (await pull(setup, { format: 'verl', minGroups: '1', maxGroups: '5', waitMs: '0' })).body;
    expect(held.groups).toEqual(['task-b']);
    await setup.close();
    setup = await startGatewayWithSim(SIM, { adminToken: ADMIN_TOKEN, db });
    // leases are the store's (schema 7): task-b's outlives the restart, and its consumer acknowledges it through the new process
    expect((await pull(setup, { format: 'verl', maxGroups: '5', waitMs: '0' })).status).toBe(204);
    expect((await api(setup, 'POST', `/batches/${batch.batchId}/ack`, { body: {} })).status).toBe(200);
    expect((await api(setup, 'POST', `/batches/${held.batchId}/ack`, { body: {} })).body).toMatchObject({ groups: ['task-b'] });
  });

  it('a lease not acknowledged in time returns its groups to a waiting consumer; the late ack is 409', async () => {
    const gateway = await start();
    await runGroup(gateway, 'task-a', [0, 1]);
    const slow = (await pull(gateway, { format: 'verl', leaseMs: '100', consumer: 'slow', waitMs: '0' })).body;
    const fast = await pull(gateway, { format: 'verl', consumer: 'fast', waitMs: '30000' });
    expect(fast.body).toMatchObject({ consumer: 'fast', groups: ['task-a'] });
    const late = (await api(gateway, 'POST', `/batches/${slow.batchId}/ack`, { body: {} })) as ErrorAnswer;
    expect([late.status, late.body.error.code]).toEqual([409, 'TT_LEASE_EXPIRED']);
    expect(late.body.error.message).toMatch(/expired/);
    expect((await api(gateway, 'POST', `/batches/${fast.body.batchId}/ack`, { body: {} })).status).toBe(200);
    expect(gateway.gateway.store.listServableGroups({ limit: 10 })).toEqual([]);
  });

  it('a release gives the groups back at once', async () => {
    const gateway = await start();
    await runGroup(gateway, 'task-a', [1]);
    const first = (await pull(gateway, { format: 'jsonl', waitMs: '0' })).body;
    const released = await api(gateway, 'POST', `/batches/${first.batchId}/release`, { body: {} });
    expect([released.status, released.body]).toMatchObject([200, { batchId: first.batchId, groups: ['task-a'], released: true }]);
    expect((await pull(gateway, { format: 'jsonl', waitMs: '0' })).body.groups).toEqual(['task-a']);
    const ack = (await api(gateway, 'POST', `/batches/${first.batchId}/ack`, { body: {} })) as ErrorAnswer;
    expect([ack.status, ack.body.error.code]).toEqual([409, 'TT_LEASE_EXPIRED']);
  });

  it('an unknown batch is 404 in the admin error shape', async () => {
    const gateway = await start();
    for (const action of ['ack', 'release']) {
      const answer = (await api(gateway, 'POST', `/batches/no-such-batch/${action}`, { body: {} })) as ErrorAnswer;
      expect([answer.status, answer.body.error.code]).toEqual([404, 'TT_BATCH_NOT_FOUND']);
    }
  });

  it('a client that leaves during the long poll leaves no lease behind', async () => {
    const gateway = await start();
    const leaving = new AbortController();
    const waiting = nextPullHandler('end');
    const answered = nextPullHandler('asyncEnd');
    const polling = pull(gateway, { format: 'verl', waitMs: '30000' }, { signal: leaving.signal }).catch((error: unknown) => error);
    await waiting;
    leaving.abort();
    expect(await polling).toMatchObject({ name: 'AbortError' });
    // the handler has seen the client go: its wait ended without a lease
    await answered;
    await runGroup(gateway, 'task-a', [0, 1]);
    expect((await pull(gateway, { format: 'verl', waitMs: '0' })).body.groups).toEqual(['task-a']);
  });

  it('a pull waiting when the gateway shuts down answers 503', async () => {
    const gateway = await start();
    const waiting = nextPullHandler('end');
    const polling = pull<{ error: { code: string } }>(gateway, { format: 'verl', waitMs: '30000' });
    await waiting;
    await gateway.gateway.close();
    const answer = await polling;
    expect([answer.status, answer.body.error.code]).toEqual([503, 'TT_SHUTTING_DOWN']);
  });
});

describe('pull API refusals', () => {
  it('needs the admin token: 401 without it, 401 with a wrong one, 403 with a session key', async () => {
    const gateway = await start();
    await runGroup(gateway, 'task-a', [1]);
    const created = await api<{ apiKey: string }>(gateway, 'POST', '/sessions', { body: {} });
    for (const [credential, status] of [
      [null, 401],
      ['wrong-token', 401],
      [created.body.apiKey, 403],
    ] as const) {
      const answer = await pull<{ error: { code: string } }>(gateway, { format: 'verl', waitMs: '0' }, { credential });
      expect([credential, answer.status]).toEqual([credential, status]);
      expect(answer.body.error.code).toMatch(/^TT_(UNAUTHORIZED|FORBIDDEN)$/);
    }
    expect((await api(gateway, 'POST', '/batches/anything/ack', { body: {}, credential: null })).status).toBe(401);
    expect(gateway.gateway.store.listServableGroups({ limit: 10 })).toEqual(['task-a']);
  });

  it('refuses a bad format, shape, filter, option or unknown key with 400 in the admin error shape, leasing nothing', async () => {
    const gateway = await start();
    await runGroup(gateway, 'task-a', [1]);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /format/],
      [{ format: 'no-such-format' }, /unknown trainer format 'no-such-format'/],
      [{ format: 'verl', shape: 'wide' }, /shape/],
      [{ format: 'verl', rewardMin: 'high' }, /rewardMin/],
      [{ format: 'verl', split: 'dev' }, /split/],
      [{ format: 'verl', estimator: 'ppo' }, /estimator/],
      [{ format: 'verl', since: '2000', until: '1000' }, /since must be before until/],
      [{ format: 'verl', minGroups: '0' }, /minGroups/],
      [{ format: 'verl', minGroups: '3', maxGroups: '2' }, /maxGroups/],
      [{ format: 'verl', waitMs: '60001' }, /waitMs/],
      [{ format: 'verl', leaseMs: '10' }, /leaseMs/],
      [{ format: 'verl', groupIds: 'task-a' }, /chooses the groups/],
      [{ format: 'verl', rewardmin: '0' }, /unknown query parameter rewardmin/],
    ];
    for (const [query, message] of cases) {
      const answer = await pull<{ error: { code: string; message: string } }>(gateway, { waitMs: '0', ...query });
      expect([query, answer.status, answer.body.error.code]).toEqual([query, 400, 'TT_INVALID_REQUEST']);
      expect(answer.body.error.message).toMatch(message);
    }
    expect((await pull(gateway, { format: 'verl', waitMs: '0' })).body.groups).toEqual(['task-a']);
  });

  it('is in the OpenAPI document', async () => {
    const gateway = await start();
    const document = await api<{ paths: Record<string, unknown> }>(gateway, 'GET', '/openapi.json');
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/tokentap/v1/batches', '/tokentap/v1/batches/{batchId}/ack', '/tokentap/v1/batches/{batchId}/release']),
    );
  });
});
