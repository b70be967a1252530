import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { expectErrorShape } from './protocol-shapes.js';
import { storeFingerprint } from './store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-reward-fuzz-0123456';
/** the reward rule of docs/rollouts.md, written out again here so the test does not trust the code it checks */
const BOUND = 1e30;

let setup: GatewayWithSim;
let sessionKey: string;
beforeAll(async () => {
  setup = await startGatewayWithSim({}, { adminToken: ADMIN_TOKEN, sessionIdleTimeoutMs: 0 });
  sessionKey = (await setup.gateway.createSession({ id: 'fuzz-rewards' })).apiKey;
});
afterAll(async () => {
  await setup.close();
});

const negated = (values: fc.Arbitrary<number>): fc.Arbitrary<number> =>
  fc.tuple(values, fc.boolean()).map(([value, negative]) => (negative ? -value : value));
/** Ordinary rewards, numbers at the bound and just past it, and numbers near ±1.7e308 whose sums overflow to Infinity. */
const rewardNumber = fc.oneof(
  fc.double({ min: -1, max: 1, noNaN: true }),
  fc.integer({ min: -1000, max: 1000 }),
  negated(fc.double({ min: 1e300, max: Number.MAX_VALUE, noNaN: true })),
  negated(fc.constantFrom(1.7e308, Number.MAX_VALUE, 1e30, 1.0000000000000002e30, 9.999999999999999e29, 5e29, 9e29)),
  negated(fc.double({ min: 1e28, max: 2e30, noNaN: true })),
);
const componentName = fc.stringMatching(/^[a-z0-9_]{1,8}$/);
/** few components, many components, and many copies of one large number (each within the bound, their sum not) */
const components = fc.oneof(
  fc.dictionary(componentName, rewardNumber, { maxKeys: 4 }),
  fc.dictionary(componentName, rewardNumber, { minKeys: 20, maxKeys: 200 }),
  fc
    .tuple(fc.integer({ min: 2, max: 200 }), negated(fc.constantFrom(9e29, 5e29, 1e30, 1.7e308, 1e308)))
    .map(([count, value]) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`c${index}`, value]))),
);
const rewardBody = fc.record({ value: rewardNumber, components }, { requiredKeys: [] });

/** What the rule says of a body: its stored value when it may be stored, null when it must be refused. */
function expectedValue(body: { value?: number; components?: Record<string, number> }): number | null {
  if (body.value === undefined && body.components === undefined) return null;
  const parts = Object.values(body.components ?? {});
  const sum = parts.reduce((total, part) => total + part, 0);
  const numbers = [...(body.value === undefined ? [] : [body.value]), ...parts, sum];
  return numbers.every((number) => Number.isFinite(number) && Math.abs(number) <= BOUND) ? (body.value ?? sum) : null;
}

describe('rewards fuzzed with huge numbers: values near ±1.7e308, many components, sums that overflow', () => {
  it('a reward outside ±1e30 (value, component or sum) is 4xx in the admin error shape, storing nothing; every stored reward is finite', async () => {
    const seen = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(rewardBody, fc.boolean(), async (body, asSessionKey) => {
        const before = storeFingerprint(setup.gateway.store);
        const sent = JSON.stringify(body);
        const response = await fetch(`${setup.url}/tokentap/v1/sessions/fuzz-rewards/reward`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${asSessionKey ? sessionKey : ADMIN_TOKEN}` },
          body: sent,
        });
        const text = await response.text();
        // judged on what the server reads: -0 travels as 0, and the components in the order JSON.parse gives them
        const expected = expectedValue(JSON.parse(sent) as typeof body);
        const label = `${sent.slice(0, 300)}: ${response.status} ${text.slice(0, 300)}`;
        if (expected === null) {
          seen.refused += 1;
          expect(response.status, label).toBe(400);
          expectErrorShape('admin', text, label);
          expect(storeFingerprint(setup.gateway.store), label).toBe(before);
        } else {
          seen.accepted += 1;
          expect(response.status, label).toBe(201);
          expect((JSON.parse(text) as { value: number }).value, label).toBe(expected);
        }
      }),
      { numRuns: 300 },
    );
    // both sides were exercised, and nothing non-finite or beyond the bound reached the store
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
    const stored = setup.gateway.store.listRewards('fuzz-rewards', { history: true });
    expect(stored.length).toBe(seen.accepted);
    for (const reward of stored) {
      for (const number of [reward.value, ...Object.values(reward.components ?? {})])
        expect(Number.isFinite(number) && Math.abs(number) <= BOUND, JSON.stringify(reward)).toBe(true);
    }
  }, 120_000);
});
