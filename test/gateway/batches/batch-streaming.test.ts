import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { Store } from '../../../store/index.js';
import { sampleBeginInput, sampleFinishInput } from '../../store/store-fixtures.js';
import { ADMIN_TOKEN, stalledAdminGet, startRolloutGateway } from '../rollouts/rollout-test-helpers.js';
import { pull } from './batch-test-helpers.js';

const GROUPS = 12;
/** prompt ids per call: a verl row is about 0.6 MB of JSON, a batch of 12 groups x 2 rollouts about 15 MB */
const PROMPT_IDS = 100_000;

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** Complete groups of two rewarded rollouts, one long call each, written straight into the gateway's store. */
function addLongGroups(store: Store): string[] {
  const prompt = Array.from({ length: PROMPT_IDS }, (_, index) => 1000 + (index % 50_000));
  const groupIds: string[] = [];
  for (let group = 0; group < GROUPS; group++) {
    const groupId = `long-${String(group).padStart(2, '0')}`;
    const createdAt = 1_700_000_000_000 + group * 10;
    store.declareGroup({ groupId, expectedSize: 2, createdAt });
    for (let rollout = 0; rollout < 2; rollout++) {
      const sessionId = `${groupId}-r${rollout}`;
      store.createRollout({ sessionId, groupId, createdAt });
      const { callId } = store.beginCall(sampleBeginInput({ sessionId, startedAt: createdAt }));
      store.finishCall(
        callId,
        sampleFinishInput({ promptTokenIds: prompt, usage: { promptTokens: PROMPT_IDS, completionTokens: 3 }, endedAt: createdAt + 5 }),
      );
      store.addReward({ sessionId, value: rollout, source: 'library', createdAt: createdAt + 6 });
      store.endSession(sessionId, { status: 'completed', reason: 'explicit', endedAt: createdAt + 7 });
    }
    groupIds.push(groupId);
  }
  return groupIds;
}

describe('a pull of many large groups', () => {
  it('is written row by row (chunked, no content-length) and parses to the whole batch', async () => {
    setup = await startRolloutGateway();
    const groupIds = addLongGroups(setup.gateway.store);
    const response = await fetch(`${setup.url}/tokentap/v1/batches?format=verl&minGroups=${GROUPS}&waitMs=0`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const batch = (await response.json()) as {
      groups: string[];
      rows: Array<{ uid: string; prompt_ids: number[] }>;
      summary: { samples: number };
      provenance: { schema_version: string };
    };
    expect(batch.groups).toEqual(groupIds);
    expect(batch.rows).toHaveLength(2 * GROUPS);
    expect(batch.rows.every((row) => row.prompt_ids.length === PROMPT_IDS)).toBe(true);
    expect(batch.summary.samples).toBe(2 * GROUPS);
    expect(batch.provenance.schema_version).toBe('1');
  }, 60_000);

  it('a client that leaves mid-batch gets nothing leased: its groups are served to the next pull at once', async () => {
    setup = await startRolloutGateway();
    const groupIds = addLongGroups(setup.gateway.store);
    // a consumer that stops reading: the gateway fills the socket and waits for it to drain instead of building the
    // rest in memory
    const socket = await stalledAdminGet(setup, `/batches?format=verl&minGroups=${GROUPS}&waitMs=0&leaseMs=3600000`);
    // mid-batch: rows beyond the status line have arrived (and sit unread in the paused socket)
    await expect.poll(() => socket.readableLength).toBeGreaterThan(0);
    socket.destroy();
    // leased for an hour, yet served again at once: the cut batch's lease was released
    const again = await pull(setup, { format: 'verl', minGroups: String(GROUPS), waitMs: '5000' });
    expect(again.status).toBe(200);
    expect(again.body.groups).toEqual(groupIds);
  }, 60_000);
});
