import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { postResponses, readResponsesEvents } from './openai-responses-events.js';

const MODEL = 'Qwen/Qwen3-8B';

let setup: GatewayWithSim;

beforeAll(async () => {
  setup = await startGatewayWithSim({ maxModelLen: 4096 });
});

afterAll(async () => {
  await setup.close();
});

function post(payload: string, url = '/s/bad/v1/responses') {
  return setup.gateway.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
}

/** Every call ever accepted has ended: none is left `in_progress`. */
function expectNoCallInProgress(): void {
  for (const session of setup.gateway.store.listSessions()) {
    expect(setup.gateway.store.listCalls(session.id).filter((call) => call.status === 'in_progress')).toEqual([]);
  }
}

describe('the responses front door rejects bad input in OpenAI shape and records nothing', () => {
  const cases: Array<[string, unknown, string, string | null]> = [
    ['malformed JSON', '{"input": [', 'TT_INVALID_REQUEST', null],
    ['no input and no previous response', { model: MODEL }, 'TT_INVALID_REQUEST', 'input'],
    ['input of the wrong type', { input: 42 }, 'TT_INVALID_REQUEST', 'input'],
    ['an unknown item type', { input: [{ type: 'telepathy' }] }, 'TT_INVALID_REQUEST', 'input[0].type'],
    [
      'a function call without call_id',
      { input: [{ type: 'function_call', name: 'ls', arguments: '{}' }] },
      'TT_INVALID_REQUEST',
      'input[0].call_id',
    ],
    ['a message with an unknown role', { input: [{ role: 'wizard', content: 'x' }] }, 'TT_INVALID_REQUEST', 'input[0].role'],
    ['an unknown content part', { input: [{ role: 'user', content: [{ type: 'hologram' }] }] }, 'TT_INVALID_REQUEST', 'input[0].content[0].type'],
    ['an item reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'TT_UNSUPPORTED_FEATURE', 'input[0]'],
    [
      'a file part',
      { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }] },
      'TT_UNSUPPORTED_FEATURE',
      'input[0].content[0]',
    ],
    ['a tool without a name', { input: 'x', tools: [{ type: 'function' }] }, 'TT_INVALID_REQUEST', 'tools[0].name'],
    ['a namespace without tools', { input: 'x', tools: [{ type: 'namespace', name: 'ns' }] }, 'TT_INVALID_REQUEST', 'tools[0].tools'],
    [
      'a tool_choice of the wrong type',
      { input: 'x', tools: [{ type: 'function', name: 'ls' }], tool_choice: 7 },
      'TT_INVALID_REQUEST',
      'tool_choice',
    ],
    ['a background run', { input: 'x', background: true }, 'TT_UNSUPPORTED_FEATURE', 'background'],
    [
      'an unknown previous_response_id',
      { input: 'x', previous_response_id: 'resp_missing' },
      'TT_PREVIOUS_RESPONSE_NOT_FOUND',
      'previous_response_id',
    ],
  ];
  for (const [name, body, code, param] of cases) {
    it(`answers ${name} with 400 ${code}`, async () => {
      const response = await post(typeof body === 'string' ? body : JSON.stringify(body), `/s/bad-${code}/v1/responses`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ type: 'invalid_request_error', code, ...(param === null ? {} : { param }) });
      expect(setup.gateway.store.listCalls(`bad-${code}`)).toEqual([]);
    });
  }
});

describe('backend failures reach the harness in the Responses shape', () => {
  it('passes a context-length error on as 400 context_length_exceeded, streaming or not, and records it', async () => {
    for (const stream of [false, true]) {
      const session = `too-long-${stream}`;
      const answer = await postResponses(`${setup.openaiBase(session)}/responses`, { model: MODEL, stream, input: 'word '.repeat(5000) });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text).error).toMatchObject({ code: 'context_length_exceeded', type: 'invalid_request_error' });
      expect(setup.gateway.store.listCalls(session)).toMatchObject([{ status: 'backend_error', frontDoor: 'openai-responses' }]);
    }
  });

  it('ends a stream the backend cuts with an error event and response.failed, and records the tokens so far', async () => {
    setup.sim.setScript({ replies: [{ content: 'This stream will not finish', fault: { kind: 'cut-stream', afterTokens: 3 } }] });
    try {
      const answer = await postResponses(`${setup.openaiBase('cut')}/responses`, { model: MODEL, stream: true, input: 'hello' });
      expect(answer.status).toBe(200);
      const events = readResponsesEvents(answer.text);
      expect(events.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
      expect(events.at(-2)).toMatchObject({ code: 'TT_BACKEND_STREAM_CUT', message: expect.any(String) });
      expect(events.at(-1)).toMatchObject({ response: { status: 'failed', error: { code: 'TT_BACKEND_STREAM_CUT' } } });
      const call = setup.gateway.store.listCalls('cut')[0];
      expect(call).toMatchObject({ status: 'backend_error', frontDoor: 'openai-responses' });
      expect(call?.completionTokenIds?.length).toBeGreaterThan(0);
    } finally {
      setup.sim.setScript(null);
    }
  });
});

const anything = fc.jsonValue({ maxDepth: 2 });
/** Mostly the right type, now and then any JSON at all. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | unknown> => fc.oneof({ weight: 24, arbitrary }, { weight: 1, arbitrary: anything });
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
const text = fc.string({ maxLength: 40 });
const callId = fc.constantFrom('call_1', 'call_2');
const textParts = (type: string) => fc.array(fc.record({ type: fc.constant(type), text }), { minLength: 1, maxLength: 2 });
/** Items of every type tokentap reads, well formed, so most bodies reach the backend. */
const wellFormedItem = fc.oneof(
  fc.record({
    role: fc.constantFrom('user', 'system', 'developer'),
    content: fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), textParts('input_text')),
  }),
  fc.record({ type: fc.constant('message'), role: fc.constant('assistant'), content: textParts('output_text') }),
  fc.record({
    type: fc.constant('function_call'),
    call_id: callId,
    name: fc.constantFrom('ls', 'close_agent'),
    namespace: rarely(fc.constant('ns')),
    arguments: fc.constantFrom('{}', '{"path": "."}'),
  }),
  fc.record({ type: fc.constant('custom_tool_call'), call_id: callId, name: fc.constant('apply_patch'), input: text }),
  fc.record({
    type: fc.constantFrom('function_call_output', 'custom_tool_call_output'),
    call_id: callId,
    output: fc.oneof(text, textParts('input_text')),
  }),
  fc.record({
    type: fc.constant('reasoning'),
    summary: fc.array(fc.record({ type: fc.constant('summary_text'), text }), { maxLength: 1 }),
    content: rarely(textParts('reasoning_text')),
  }),
  fc.record({ type: fc.constant('web_search_call'), id: fc.constant('ws_1'), status: fc.constant('completed') }),
);
/** Items with any mix of fields and types, mostly wrong. */
const part = fc.record(
  {
    type: maybe(fc.constantFrom('input_text', 'output_text', 'input_image', 'input_file', 'refusal', 'bogus')),
    text: maybe(text),
    image_url: maybe(fc.constant('data:image/png;base64,AA==')),
  },
  { requiredKeys: [] },
);
const wildItem = fc.record(
  {
    type: fc.constantFrom('message', 'function_call', 'function_call_output', 'custom_tool_call', 'reasoning', 'item_reference', 'bogus', undefined),
    role: maybe(fc.constantFrom('user', 'assistant', 'system', 'developer', 'tool')),
    content: maybe(fc.oneof(text, fc.array(part, { maxLength: 3 }))),
    call_id: maybe(callId),
    name: maybe(fc.constantFrom('ls', 'apply_patch')),
    arguments: maybe(fc.constantFrom('{}', 'not json')),
    output: maybe(text),
  },
  { requiredKeys: [] },
);
const item = fc.oneof({ weight: 9, arbitrary: wellFormedItem }, { weight: 1, arbitrary: wildItem });
const tool = fc.oneof(
  fc.record({
    type: fc.constant('function'),
    name: fc.constant('ls'),
    parameters: fc.constant({ type: 'object', properties: { path: { type: 'string' } } }),
  }),
  fc.record({
    type: fc.constant('custom'),
    name: fc.constant('apply_patch'),
    format: rarely(fc.constant({ type: 'grammar', syntax: 'lark', definition: 'start: "x"' })),
  }),
  fc.record({
    type: fc.constant('namespace'),
    name: fc.constant('ns'),
    tools: maybe(
      fc.array(fc.record({ type: fc.constantFrom('function', 'custom'), name: fc.constantFrom('close_agent', 'spawn') }), { maxLength: 2 }),
    ),
  }),
  fc.record({ type: fc.constantFrom('web_search', 'file_search', 'code_interpreter') }),
  fc.record({ type: maybe(fc.constantFrom('function', 'bogus')), name: maybe(text) }, { requiredKeys: [] }),
);
const responsesBody = fc.record(
  {
    model: maybe(fc.constant(MODEL)),
    input: maybe(fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.array(item, { minLength: 1, maxLength: 5 }))),
    instructions: maybe(text),
    tools: maybe(fc.array(tool, { maxLength: 3 })),
    tool_choice: maybe(
      fc.oneof(
        fc.constantFrom('auto', 'none', 'required'),
        fc.record({
          type: fc.constantFrom('function', 'custom', 'allowed_tools', 'web_search'),
          name: fc.constantFrom('ls', 'close_agent'),
          mode: fc.constant('auto'),
        }),
      ),
    ),
    stream: maybe(fc.boolean()),
    store: maybe(fc.boolean()),
    previous_response_id: rarely(fc.constant('resp_unknown')),
    max_output_tokens: maybe(fc.integer({ min: 1, max: 24 })),
    temperature: maybe(fc.double({ min: 0, max: 2, noNaN: true })),
    reasoning: maybe(fc.record({ effort: fc.constantFrom('minimal', 'low', 'high', 'weird'), summary: fc.constant('auto') }, { requiredKeys: [] })),
    text: maybe(
      fc.record({
        format: fc.record({
          type: fc.constantFrom('text', 'json_object', 'json_schema'),
          name: fc.constant('x'),
          schema: fc.constant({ type: 'object' }),
        }),
      }),
    ),
    metadata: maybe(fc.dictionary(fc.string({ maxLength: 8 }), text, { maxKeys: 2 })),
  },
  { requiredKeys: ['input'] },
);

describe('fuzzed Responses bodies', () => {
  it('get a 4xx in OpenAI shape or a 200, never a 5xx, and leave no call in progress', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ weight: 4, arbitrary: responsesBody }, { weight: 1, arbitrary: anything }), async (body) => {
        const response = await post(JSON.stringify(body), '/s/fuzz/v1/responses');
        expect(response.statusCode).toBeLessThan(500);
        if (response.statusCode >= 400) {
          expect(response.json().error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
        } else if (String(response.headers['content-type']).startsWith('text/event-stream')) {
          expect(readResponsesEvents(response.body).at(-1)?.type).toMatch(/^response\.(completed|incomplete)$/);
        } else {
          expect(response.json()).toMatchObject({ object: 'response', status: expect.stringMatching(/^(completed|incomplete)$/) });
        }
      }),
      { numRuns: 150 },
    );
    expectNoCallInProgress();
  });
});
