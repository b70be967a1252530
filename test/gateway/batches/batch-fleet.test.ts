import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { createTestDatabase, dropTestDatabase, postgresAvailable, postgresUnavailable } from '../../helpers/test-postgres.js';
import { ADMIN_TOKEN, api } from '../rollouts/rollout-test-helpers.js';
import { nextPullHandler, pull, runGroup, type ErrorAnswer } from './batch-test-helpers.js';

const SIM = { script: { replies: [{ times: 'forever' as const, content: 'The answer is 4.' }] } };

/**
 * Two gateways on one PostgreSQL database, as two hosts of a fleet would run (issue 17): the pull API's leases are
 * the store's, so a consumer may pull from either, and acknowledge or release through either.
 */
describe.skipIf(!postgresAvailable())(
  postgresAvailable() ? 'pull API across two gateways on one PostgreSQL' : `skipped: ${postgresUnavailable()}`,
  () => {
    let url: string;
    let first: GatewayWithSim;
    let second: GatewayWithSim;
    beforeEach(async () => {
      url = createTestDatabase();
      first = await startGatewayWithSim(SIM, { adminToken: ADMIN_TOKEN, db: url });
      second = await startGatewayWithSim(SIM, { adminToken: ADMIN_TOKEN, db: url });
    });
    afterEach(async () => {
      await first.close();
      await second.close();
      dropTestDatabase(url);
    });

    it('consumers long-polling both gateways at once get every group once, wherever it completed', async () => {
      const groupIds = ['task-a', 'task-b', 'task-c', 'task-d', 'task-e', 'task-f'];
      const pulls = [];
      for (const gateway of [first, second, first, second, first, second]) {
        const waiting = nextPullHandler('end');
        pulls.push(pull(gateway, { format: 'verl', maxGroups: '1', waitMs: '30000', consumer: `c-${pulls.length}` }));
        await waiting;
      }
      // completed alternately through each gateway: the other one's waiting pulls learn of them from the store
      for (const [index, groupId] of groupIds.entries()) await runGroup(index % 2 === 0 ? first : second, groupId, [0, 1]);
      const batches = await Promise.all(pulls);
      expect(batches.map((batch) => batch.status)).toEqual(groupIds.map(() => 200));
      expect(batches.flatMap((batch) => batch.body.groups).sort()).toEqual(groupIds);
      expect(new Set(batches.map((batch) => batch.body.batchId)).size).toBe(groupIds.length);
      expect((await pull(first, { format: 'verl', waitMs: '0' })).status).toBe(204);
      expect((await pull(second, { format: 'verl', waitMs: '0' })).status).toBe(204);
    });

    it('a lease made on one gateway is acknowledged on the other, and a retried ack on the first answers the same', async () => {
      await runGroup(first, 'task-a', [0, 1]);
      const batch = (await pull(first, { format: 'verl', waitMs: '0', consumer: 'trainer-0' })).body;
      expect(batch.groups).toEqual(['task-a']);
      // leased on the first: the second has nothing to serve
      expect((await pull(second, { format: 'verl', waitMs: '0' })).status).toBe(204);
      const ack = await api(second, 'POST', `/batches/${batch.batchId}/ack`, { body: {} });
      expect([ack.status, ack.body]).toMatchObject([200, { batchId: batch.batchId, consumer: 'trainer-0', groups: ['task-a'] }]);
      expect((await api(first, 'POST', `/batches/${batch.batchId}/ack`, { body: {} })).body).toEqual(ack.body);
      expect(first.gateway.store.listServableGroups({ limit: 10 })).toEqual([]);
    });

    it('a lease that expires on one gateway is served to a pull waiting on the other; the late ack is 409 on both', async () => {
      await runGroup(first, 'task-a', [0, 1]);
      const slow = (await pull(first, { format: 'verl', leaseMs: '100', consumer: 'slow', waitMs: '0' })).body;
      const fast = await pull(second, { format: 'verl', consumer: 'fast', waitMs: '30000' });
      expect(fast.body).toMatchObject({ consumer: 'fast', groups: ['task-a'] });
      for (const gateway of [first, second]) {
        const late = (await api(gateway, 'POST', `/batches/${slow.batchId}/ack`, { body: {} })) as ErrorAnswer;
        expect([late.status, late.body.error.code]).toEqual([409, 'TT_LEASE_EXPIRED']);
      }
      expect((await api(first, 'POST', `/batches/${fast.body.batchId}/ack`, { body: {} })).status).toBe(200);
    });

    it('a lease released through the other gateway is served to a pull waiting on the one that made it', async () => {
      await runGroup(first, 'task-a', [1]);
      const held = (await pull(first, { format: 'jsonl', waitMs: '0', consumer: 'holder' })).body;
      const waiting = nextPullHandler('end');
      const next = pull(first, { format: 'jsonl', consumer: 'next', waitMs: '30000' });
      await waiting;
      const released = await api(second, 'POST', `/batches/${held.batchId}/release`, { body: {} });
      expect([released.status, released.body]).toMatchObject([200, { groups: ['task-a'], released: true }]);
      expect((await next).body).toMatchObject({ consumer: 'next', groups: ['task-a'] });
      const again = (await api(first, 'POST', `/batches/${held.batchId}/release`, { body: {} })) as ErrorAnswer;
      expect([again.status, again.body.error.code]).toEqual([409, 'TT_LEASE_EXPIRED']);
    });
  },
);
