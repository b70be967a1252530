import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRetokenizer } from '../../../reconstruct/retokenize/create-retokenizer.js';
import { jsonSchemaToTypescript } from '../../../model-format/families/gpt-oss/harmony-tool-types.js';
import { renderHarmonyChat } from '../../../model-format/families/gpt-oss/render-harmony-chat.js';
import { tryRetokenizeCall } from '../../../reconstruct/retokenize/retokenize-call.js';
import type { Retokenizer } from '../../../reconstruct/retokenize/retokenizer.js';
import { writeHarmonyReply } from '../../../model-format/families/gpt-oss/write-harmony-reply.js';
import type { CallBodies, CallRow } from '../../../store/types.js';

const WEATHER_SCHEMA = {
  type: 'object',
  properties: {
    location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
    format: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
  },
  required: ['location'],
};

/** openai/harmony src/tests.rs `test_render_functions_with_parameters`, as OpenAI chat tools. */
const HARMONY_TEST_TOOLS = [
  { type: 'function', function: { name: 'get_location', description: 'Gets the location of the user.' } },
  {
    type: 'function',
    function: { name: 'get_current_weather', description: 'Gets the current weather in the provided location.', parameters: WEATHER_SCHEMA },
  },
  {
    type: 'function',
    function: {
      name: 'get_multiple_weathers',
      description: 'Gets the current weather in the provided list of locations.',
      parameters: {
        type: 'object',
        properties: {
          locations: { type: 'array', items: { type: 'string' }, description: 'List of city and state, e.g. ["San Francisco, CA", "New York, NY"]' },
          format: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
        },
        required: ['locations'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'kitchensink',
      description: 'A function with various complex schemas.',
      parameters: {
        description: 'params object',
        type: 'object',
        properties: {
          string: { type: 'string', title: 'STRING', description: 'A string', examples: ['hello', 'world'] },
          string_nullable: { type: 'string', nullable: true, description: 'A nullable string', default: 'the default' },
          string_enum: { type: 'string', enum: ['a', 'b', 'c'] },
          oneof_string_or_number: {
            oneOf: [
              { type: 'string', default: 'default_string_in_oneof' },
              { type: 'number', description: 'numbers can happen too' },
            ],
            description: 'a oneof',
            default: 20,
          },
        },
      },
    },
  },
];

let harmony: Retokenizer;

beforeAll(async () => {
  harmony = await createRetokenizer({ kind: 'tiktoken', encoding: 'o200k_harmony' });
});

describe('the Harmony prompt', () => {
  it("renders openai/harmony's own function-tools test conversation byte for byte", () => {
    const expected = readFileSync(new URL('fixtures/harmony-render-functions-with-parameters.txt', import.meta.url), 'utf8');
    const messages = [
      { role: 'system', content: 'Always respond in riddles' },
      { role: 'user', content: 'What is the weather like in SF?' },
    ];
    expect(renderHarmonyChat(messages, HARMONY_TEST_TOOLS, { date: '2025-06-28', reasoningEffort: 'high' })).toBe(expected);
  });

  it('renders a tool loop: analysis kept while the turn is unfinished, the call recipient-first as the library does', () => {
    const text = renderHarmonyChat(
      [
        { role: 'user', content: 'Weather in SF?' },
        {
          role: 'assistant',
          content: null,
          reasoning: 'Need the tool.',
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_current_weather', arguments: '{"location":"SF"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"sunny": true}' },
      ],
      [HARMONY_TEST_TOOLS[1]],
      { date: '2025-06-28' },
    );
    expect(text.slice(text.indexOf('<|start|>user'))).toBe(
      '<|start|>user<|message|>Weather in SF?<|end|>' +
        '<|start|>assistant<|channel|>analysis<|message|>Need the tool.<|end|>' +
        '<|start|>assistant to=functions.get_current_weather<|channel|>commentary <|constrain|>json<|message|>{"location":"SF"}<|call|>' +
        '<|start|>functions.get_current_weather to=assistant<|channel|>commentary<|message|>{"sunny": true}<|end|>' +
        '<|start|>assistant',
    );
    expect(text).toContain(
      "Reasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.\nCalls to these tools must go to the commentary channel: 'functions'.<|end|>",
    );
  });

  it('drops analysis before the first final message once the last assistant message is final (auto_drop_analysis)', () => {
    const text = renderHarmonyChat(
      [
        { role: 'user', content: 'What is 2 + 2?' },
        { role: 'assistant', reasoning: 'Simple arithmetic.', content: '2 + 2 equals 4.' },
        { role: 'user', content: 'What about 9 / 2?' },
      ],
      null,
    );
    expect(text).not.toContain('Simple arithmetic.');
    expect(
      text.endsWith(
        '<|start|>assistant<|channel|>final<|message|>2 + 2 equals 4.<|end|><|start|>user<|message|>What about 9 / 2?<|end|><|start|>assistant',
      ),
    ).toBe(true);
    expect(text).not.toContain('Current date:');
  });

  it('types nested objects, arrays of objects and top-level oneOf like harmony', () => {
    expect(
      jsonSchemaToTypescript({ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'integer' } }, required: ['b'] } } }, ''),
    ).toBe('{\na?: {\n    b: number,\n    },\n}');
    expect(jsonSchemaToTypescript({ type: 'array', items: { type: ['string', 'null'] } }, '')).toBe('string | null[]');
    expect(jsonSchemaToTypescript({ oneOf: [{ type: 'string' }, { type: 'boolean', default: false }] }, '')).toBe(
      '\n | string\n | boolean // default: false',
    );
    expect(jsonSchemaToTypescript({ anyOf: [{ type: 'string' }] }, '')).toBe('any');
  });
});

describe('the Harmony reply', () => {
  it("retokenizes reasoning and a final answer to openai/harmony's documented completion ids", () => {
    const result = tryRetokenizeCall(
      call({ finishReason: 'stop' }),
      bodies({
        reasoning: 'User asks: "What is 2 + 2?" Simple arithmetic. Provide answer.',
        content: '2 + 2 = 4.',
      }),
      harmony,
    );
    if (result.source !== 'retokenized') throw new Error(result.detail);
    expect(Array.from(result.completionTokenIds)).toEqual([
      200005, 35644, 200008, 1844, 31064, 25, 392, 4827, 382, 220, 17, 659, 220, 17, 16842, 12295, 81645, 13, 51441, 6052, 13, 200007, 200006, 173781,
      200005, 17196, 200008, 17, 659, 220, 17, 314, 220, 19, 13, 200002,
    ]);
    expect(harmony.decode(result.promptTokenIds)).toBe(
      '<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n' +
        'Current date: 2025-06-28\n\nReasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>' +
        '<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant',
    );
    expect(result.tokenizer).toEqual({ name: 'tiktoken:o200k_harmony', hash: harmony.hash });
  });

  it('writes a tool call channel-first, as gpt-oss generates it, ending with <|call|>', () => {
    const result = tryRetokenizeCall(
      call({ finishReason: 'tool_calls' }),
      bodies({
        content: null,
        reasoning: 'Need the tool.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"SF"}' } }],
      }),
      harmony,
    );
    if (result.source !== 'retokenized') throw new Error(result.detail);
    expect(harmony.decode(result.completionTokenIds)).toBe(
      '<|channel|>analysis<|message|>Need the tool.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location":"SF"}<|call|>',
    );
  });

  it('leaves a reply cut by max tokens open, and refuses several calls from one completion', () => {
    expect(writeHarmonyReply({ reasoning: 'Thinking about', content: null, toolCalls: [], endsTurn: false })).toEqual({
      text: '<|channel|>analysis<|message|>Thinking about',
      endToken: null,
    });
    const twoCalls = { name: 'a', arguments: '{}' };
    expect(writeHarmonyReply({ reasoning: null, content: null, toolCalls: [twoCalls, twoCalls], endsTurn: true })).toHaveProperty('refusal');
  });
});

function call(fields: Partial<CallRow>): CallRow {
  return {
    id: 'call-1',
    sessionId: 's',
    seq: 1,
    frontDoor: 'openai-chat',
    path: '/v1/chat/completions',
    requestedModel: 'gpt-oss-20b',
    backendModel: 'gpt-oss-20b',
    stream: false,
    status: 'ok',
    tokenSource: 'none',
    promptTokenIds: null,
    completionTokenIds: null,
    completionLogprobs: null,
    finishReason: null,
    stopReason: null,
    samplingParams: {},
    metadata: {},
    usage: null,
    error: null,
    httpStatus: 200,
    flags: [],
    policyVersion: null,
    backendId: null,
    weightVersion: null,
    startedAt: Date.UTC(2025, 5, 28, 12),
    endedAt: null,
    timeToFirstTokenMs: null,
    totalMs: null,
    ...fields,
  };
}

function bodies(message: Record<string, unknown>): CallBodies {
  const request = { model: 'gpt-oss-20b', messages: [{ role: 'user', content: 'What is 2 + 2?' }] };
  return {
    requestBody: request,
    backendRequestBody: request,
    chatRequestBody: null,
    responseBody: { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', ...message } }] },
    responseStream: null,
  };
}
