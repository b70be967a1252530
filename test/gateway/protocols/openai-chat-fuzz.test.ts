import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { anyJson, fuzzPayload, mostly as mostlyValid } from '../../helpers/fuzz-arbitraries.js';

let setup: GatewayWithSim;
beforeAll(async () => {
  // a fixed reply: the property is about the front door, not about the simulator's random policy
  setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', reasoning: 'ok', content: 'fine' }] } });
});
afterAll(async () => {
  await setup.close();
});

const anything = anyJson;
const mostly = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> => mostlyValid(valid, 10);

const text = mostly(fc.string({ maxLength: 30 }));
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('image_url'), image_url: fc.record({ url: text }) }),
);
const toolCall = fc.record({
  id: text,
  type: fc.constant('function'),
  function: fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), arguments: mostly(fc.json({ maxDepth: 2 })) }),
});
const message = fc.oneof(
  fc.record({
    role: fc.constantFrom('system', 'user', 'developer'),
    content: mostly(fc.oneof(fc.string({ maxLength: 30 }), fc.array(part, { maxLength: 2 }))),
  }),
  fc.record(
    {
      role: fc.constant('assistant'),
      content: mostly(fc.option(fc.string({ maxLength: 30 }))),
      tool_calls: mostly(fc.array(toolCall, { maxLength: 2 })),
      reasoning: text,
    },
    { requiredKeys: ['role'] },
  ),
  fc.record({ role: fc.constant('tool'), tool_call_id: text, content: text }),
  fc.record({ role: anything, content: anything }),
);
const tool = fc.record({
  type: fc.constant('function'),
  function: fc.record({
    name: fc.string({ minLength: 1, maxLength: 8 }),
    parameters: mostly(fc.constant({ type: 'object', properties: { path: { type: 'string' } } })),
  }),
});

const request = fc.record(
  {
    model: mostly(fc.constant('Qwen/Qwen3-8B')),
    messages: mostly(fc.array(message, { minLength: 1, maxLength: 4 })),
    tools: mostly(fc.array(tool, { maxLength: 2 })),
    stream: mostly(fc.boolean()),
    max_tokens: mostly(fc.integer({ min: 1, max: 30 })),
    temperature: mostly(fc.double({ min: 0, max: 2, noNaN: true })),
    n: mostly(fc.integer({ min: 1, max: 3 })),
    logprobs: mostly(fc.boolean()),
    top_logprobs: mostly(fc.integer({ min: 0, max: 25 })),
    return_token_ids: mostly(fc.boolean()),
    stream_options: mostly(fc.record({ include_usage: fc.boolean() })),
    reasoning_effort: mostly(fc.constantFrom('none', 'low', 'high', 'bogus')),
  },
  { requiredKeys: ['messages'] },
);

const payload = fuzzPayload(request);

describe('the Chat Completions front door under random input', () => {
  it('always answers 200 or a 4xx in OpenAI shape, never a 5xx, and leaves nothing half-stored', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(payload, fc.constantFrom('/v1/chat/completions', '/s/fuzz/v1/chat/completions'), async (body, url) => {
        const response = await fetch(`${setup.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const responseText = await response.text();
        seen.add(response.status);
        expect(
          response.status === 200 || (response.status >= 400 && response.status < 500),
          `${response.status} ${responseText.slice(0, 300)} for ${body.slice(0, 300)}`,
        ).toBe(true);
        if (response.status !== 200) {
          expect(JSON.parse(responseText)).toMatchObject({ error: { message: expect.any(String), type: expect.any(String) } });
        } else if (responseText.startsWith('data:')) {
          expect(responseText.endsWith('data: [DONE]\n\n')).toBe(true);
        } else {
          expect(JSON.parse(responseText)).toMatchObject({ object: 'chat.completion' });
        }
      }),
      { numRuns: 150 },
    );
    const calls = setup.gateway.store.listSessions({ limit: 1000 }).flatMap((session) => setup.gateway.store.listCalls(session.id));
    expect(calls.filter((call) => call.status === 'in_progress')).toEqual([]);
    expect(seen.has(200) && seen.has(400)).toBe(true);
  });
});
