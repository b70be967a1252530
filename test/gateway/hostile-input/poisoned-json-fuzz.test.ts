import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { isPoisonedJson, poisonedJson, type PoisonKind } from '../../helpers/poisoned-json.js';
import { BODY_ENDPOINTS, methodOf } from './hostile-endpoints.js';
import { expectErrorShape } from './protocol-shapes.js';
import { storeFingerprint } from './store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-hostile-tests-0123';
const MESSAGES: Record<PoisonKind, RegExp> = { 'lone-surrogate': /lone UTF-16 surrogate/, 'non-finite-number': /number too large/ };

let setup: GatewayWithSim;
let sessionId: string;
beforeAll(async () => {
  setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } }, { adminToken: ADMIN_TOKEN });
  sessionId = (await setup.gateway.createSession({ id: 'poison-target' })).id;
  // one recorded call, so "nothing changed" compares a store that holds something
  const response = await fetch(`${setup.url}/s/poison/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BODY_ENDPOINTS[0]?.valid),
  });
  expect(response.status).toBe(200);
});
afterAll(async () => {
  await setup.close();
});

const poisonedRequest = fc
  .constantFrom(...BODY_ENDPOINTS)
  .chain((endpoint) =>
    fc.tuple(
      fc.constant(endpoint),
      poisonedJson(fc.constant(endpoint.valid)),
      fc.constantFrom('application/json', 'application/json; charset=utf-8'),
    ),
  );

describe('every JSON route under bodies with a lone surrogate or a number past Number.MAX_VALUE, anywhere (issue 12)', () => {
  it('answers 400 in the route shape, naming the problem, and changes nothing', async () => {
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(poisonedRequest, async ([endpoint, { text, kind }, contentType]) => {
        expect(isPoisonedJson(text), text).toBe(true);
        kinds.add(kind);
        const before = storeFingerprint(setup.gateway.store);
        const response = await fetch(`${setup.url}${endpoint.path.replace('SESSION', sessionId)}`, {
          method: methodOf(endpoint),
          headers: { 'content-type': contentType, authorization: `Bearer ${ADMIN_TOKEN}` },
          body: text,
        });
        const answer = await response.text();
        const label = `${endpoint.name} ${text.slice(0, 200)}: ${response.status} ${answer.slice(0, 200)}`;
        expect(response.status, label).toBe(400);
        const error = (expectErrorShape(endpoint.protocol, answer, label) as { error: { message: string } }).error;
        expect(error.message, label).toMatch(MESSAGES[kind]);
        expect(storeFingerprint(setup.gateway.store), label).toBe(before);
      }),
      { numRuns: 200 },
    );
    expect([...kinds].sort()).toEqual(['lone-surrogate', 'non-finite-number']);
  }, 120_000);

  it('serves every front door afterwards', async () => {
    for (const endpoint of BODY_ENDPOINTS.filter((candidate) => candidate.protocol !== 'admin')) {
      const response = await fetch(`${setup.url}${endpoint.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(endpoint.valid),
      });
      expect(response.status, `${endpoint.name}: ${(await response.text()).slice(0, 200)}`).toBe(200);
    }
  });
});
