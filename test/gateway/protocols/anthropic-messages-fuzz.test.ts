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
const mostly = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> => mostlyValid(valid, 12);

const text = mostly(fc.string({ maxLength: 20 }));
const textBlock = fc.record({ type: fc.constant('text'), text });
const imageSource = fc.oneof(
  fc.record({ type: fc.constant('base64'), media_type: fc.constant('image/png'), data: fc.base64String({ maxLength: 16 }) }),
  fc.record({ type: fc.constant('url'), url: text }),
);
const imageBlock = fc.record({ type: fc.constant('image'), source: mostly(imageSource) });
const toolResult = fc.record(
  {
    type: fc.constant('tool_result'),
    tool_use_id: text,
    content: mostly(fc.oneof(fc.string({ maxLength: 20 }), fc.array(fc.oneof(textBlock, imageBlock), { maxLength: 2 }))),
    is_error: mostly(fc.boolean()),
  },
  { requiredKeys: ['type', 'tool_use_id'] },
);
const toolUse = fc.record({
  type: fc.constant('tool_use'),
  id: text,
  name: text,
  input: mostly(fc.dictionary(fc.string({ maxLength: 5 }), anything, { maxKeys: 3 })),
});
const thinking = fc.record({ type: fc.constant('thinking'), thinking: text, signature: text });
/** block types tokentap refuses, or that do not belong to the role */
const strange = fc.record({ type: fc.constantFrom('document', 'server_tool_use', 'search_result', 'bogus', 'tool_use', 'thinking'), data: text });

const userMessage = fc.record({
  role: fc.constant('user'),
  content: mostly(fc.oneof(fc.string({ maxLength: 30 }), fc.array(mostly(fc.oneof(textBlock, imageBlock, toolResult)), { maxLength: 3 }))),
});
const assistantMessage = fc.record({
  role: fc.constant('assistant'),
  content: mostly(
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.array(fc.oneof(textBlock, thinking, toolUse, fc.constant({ type: 'redacted_thinking', data: 'x' })), { maxLength: 3 }),
    ),
  ),
});
const systemMessage = fc.record({
  role: fc.constant('system'),
  content: mostly(fc.oneof(fc.string({ maxLength: 30 }), fc.array(textBlock, { maxLength: 2 }))),
});
const message = fc.oneof(
  { weight: 4, arbitrary: userMessage },
  { weight: 3, arbitrary: assistantMessage },
  { weight: 1, arbitrary: systemMessage },
  {
    weight: 1,
    arbitrary: fc.record({
      role: fc.oneof(fc.constantFrom('user', 'assistant', 'tool'), anything),
      content: fc.array(strange, { minLength: 1, maxLength: 2 }),
    }),
  },
);

const tool = fc.oneof(
  fc.record(
    {
      name: fc.string({ minLength: 1, maxLength: 8 }),
      description: text,
      input_schema: mostly(fc.constant({ type: 'object', properties: { path: { type: 'string' } } })),
    },
    { requiredKeys: ['name'] },
  ),
  fc.record({ type: fc.constantFrom('web_search_20250305', 'custom', 'bash_20250124'), name: fc.string({ maxLength: 8 }) }),
);

const request = fc.record(
  {
    model: mostly(fc.constant('claude-x')),
    max_tokens: mostly(fc.integer({ min: 1, max: 30 })),
    messages: mostly(fc.array(message, { minLength: 1, maxLength: 4 })),
    system: mostly(fc.oneof(fc.string({ maxLength: 30 }), fc.array(textBlock, { maxLength: 2 }))),
    tools: mostly(fc.array(tool, { maxLength: 2 })),
    tool_choice: mostly(
      fc.oneof(
        fc.record({ type: fc.constantFrom('auto', 'any', 'none') }),
        fc.record({ type: fc.constant('tool'), name: fc.string({ maxLength: 8 }) }),
      ),
    ),
    thinking: mostly(fc.record({ type: fc.constantFrom('enabled', 'disabled', 'adaptive') })),
    stop_sequences: mostly(fc.array(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 2 })),
    temperature: mostly(fc.double({ min: 0, max: 1, noNaN: true })),
    stream: mostly(fc.boolean()),
  },
  { requiredKeys: ['max_tokens', 'messages'] },
);

const payload = fuzzPayload(request);

describe('the Anthropic front door under random input', () => {
  it('always answers 200 or a 4xx in Anthropic shape, never a 5xx, and leaves nothing half-stored', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(payload, fc.constantFrom('/v1/messages', '/s/fuzz/v1/messages', '/s/fuzz/v1/messages/count_tokens'), async (body, url) => {
        const response = await fetch(`${setup.url}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const text = await response.text();
        seen.add(response.status);
        expect(
          response.status === 200 || (response.status >= 400 && response.status < 500),
          `${response.status} ${text.slice(0, 300)} for ${body.slice(0, 300)}`,
        ).toBe(true);
        if (response.status !== 200) {
          expect(JSON.parse(text)).toEqual({ type: 'error', error: { type: expect.any(String), message: expect.any(String) } });
        } else if (text.startsWith('event:')) {
          expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
        } else {
          expect(JSON.parse(text)).toMatchObject(
            url.endsWith('count_tokens') ? { input_tokens: expect.any(Number) } : { type: 'message', role: 'assistant' },
          );
        }
      }),
      { numRuns: 150 },
    );
    const calls = setup.gateway.store.listSessions().flatMap((session) => setup.gateway.store.listCalls(session.id));
    expect(calls.filter((call) => call.status === 'in_progress')).toEqual([]);
    expect(seen.has(200) && seen.has(400)).toBe(true);
  });
});
