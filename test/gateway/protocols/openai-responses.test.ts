import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { Response, ResponseInputItem, ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import type { SimScript } from '../../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../../helpers/expect-calls-match-sim.js';

const MODEL = 'Qwen/Qwen3-8B';

/** Turn 1 calls the weather tool, turn 2 answers from its output. */
const WEATHER_SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: 'sunny' }, times: 'forever', reasoning: 'The tool says sunny.', content: 'It is sunny in Paris.' },
    {
      match: { lastUserContains: 'weather' },
      times: 'forever',
      reasoning: 'I should call the weather tool.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
    },
  ],
  otherwise: 'error',
};

const TOOLS: Tool[] = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];

const QUESTION: ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }];

let setup: GatewayWithSim;

beforeEach(async () => {
  setup = await startGatewayWithSim({ script: WEATHER_SCRIPT });
});

afterEach(async () => {
  await setup.close();
});

function clientFor(session: string): OpenAI {
  return new OpenAI({ baseURL: setup.openaiBase(session), apiKey: 'sk-harness', maxRetries: 0 });
}

/** Streams one response with the raw event iterator, checking the sequence numbers as they come. */
async function streamResponse(
  client: OpenAI,
  body: Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream'>,
): Promise<{ events: ResponseStreamEvent[]; response: Response }> {
  const stream = await client.responses.create({ ...body, stream: true });
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  const last = events.at(-1);
  if (last?.type !== 'response.completed') throw new Error(`stream ended with ${last?.type}`);
  return { events, response: last.response };
}

async function create(client: OpenAI, body: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'>, stream: boolean): Promise<Response> {
  return stream ? (await streamResponse(client, body)).response : client.responses.create(body);
}

function functionCallOf(response: Response): OpenAI.Responses.ResponseFunctionToolCall {
  const call = response.output.find((item) => item.type === 'function_call');
  if (call?.type !== 'function_call') throw new Error('no function_call in output');
  return call;
}

/** The text of the message items (the SDK adds `output_text` to created responses, not to streamed events). */
function outputText(response: Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
}

function expectUsageMatchesSim(response: Response, index: number): void {
  const record = setup.sim.log[index];
  expect(response.usage).toEqual({
    input_tokens: record?.promptTokenIds.length,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: record?.completionTokenIds.length,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: (record?.promptTokenIds.length ?? 0) + (record?.completionTokenIds.length ?? 0),
  });
}

describe('the official openai client on /v1/responses, a tool loop', () => {
  for (const stream of [false, true]) {
    const mode = stream ? 'streaming' : 'non-streaming';

    it(`resends the full input each turn and every call is recorded token-exact (${mode})`, async () => {
      const session = `full-${mode}`;
      const client = clientFor(session);
      const first = await create(client, { model: MODEL, input: QUESTION, tools: TOOLS }, stream);
      expect(first.status).toBe('completed');
      expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
      const reasoning = first.output[0] as OpenAI.Responses.ResponseReasoningItem;
      expect(reasoning.content).toEqual([{ type: 'reasoning_text', text: '\nI should call the weather tool.\n' }]);
      const call = functionCallOf(first);
      expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
      expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
      expect(call.call_id).toMatch(/\S/);
      expectUsageMatchesSim(first, 0);

      const input: ResponseInputItem[] = [
        ...QUESTION,
        ...(first.output as ResponseInputItem[]),
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' },
      ];
      const second = await create(client, { model: MODEL, input, tools: TOOLS }, stream);
      expect(second.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
      expect(outputText(second)).toBe('\n\nIt is sunny in Paris.');
      expectUsageMatchesSim(second, 1);

      const calls = setup.gateway.store.listCalls(session);
      expect(calls.map((recorded) => [recorded.status, recorded.frontDoor, recorded.stream])).toEqual([
        ['ok', 'openai-responses', stream],
        ['ok', 'openai-responses', stream],
      ]);
      expectCallsMatchSim(calls, setup.sim.log);
      // the translation renders turn 1 back exactly as the model wrote it: prompt 2 extends prompt 1 + completion 1
      const [one, two] = setup.sim.log;
      expect(two?.promptTokenIds.slice(0, (one?.promptTokenIds.length ?? 0) + (one?.completionTokenIds.length ?? 0))).toEqual([
        ...(one?.promptTokenIds ?? []),
        ...(one?.completionTokenIds ?? []),
      ]);
    });

    it(`continues with previous_response_id to the same backend prompt as a full resend (${mode})`, async () => {
      const session = `chained-${mode}`;
      const client = clientFor(session);
      const first = await create(client, { model: MODEL, input: QUESTION, tools: TOOLS }, stream);
      const call = functionCallOf(first);
      const second = await create(
        client,
        {
          model: MODEL,
          tools: TOOLS,
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' }],
        },
        stream,
      );
      expect(second.previous_response_id).toBe(first.id);
      expect(outputText(second)).toBe('\n\nIt is sunny in Paris.');

      // the same conversation resent in full reaches the backend as the same prompt
      const resent = await create(
        clientFor(`${session}-resent`),
        {
          model: MODEL,
          tools: TOOLS,
          input: [
            ...QUESTION,
            ...(first.output as ResponseInputItem[]),
            { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' },
          ],
        },
        stream,
      );
      expect(outputText(resent)).toBe(outputText(second));
      expect(setup.sim.log[2]?.promptTokenIds).toEqual(setup.sim.log[1]?.promptTokenIds);

      const calls = setup.gateway.store.listCalls(session);
      expectCallsMatchSim(calls, setup.sim.log.slice(0, 2));
      expect(calls[1]?.metadata.responses).toMatchObject({ previousResponseId: first.id, responseId: second.id });
    });
  }

  it('answers an unknown previous_response_id with 400 previous_response_not_found in OpenAI shape', async () => {
    const client = clientFor('unknown-previous');
    const failure = await client.responses.create({ model: MODEL, previous_response_id: 'resp_nope', input: 'hi' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    const error = (failure as InstanceType<typeof OpenAI.BadRequestError>).error as { code: string; param: string; message: string };
    expect(error).toMatchObject({ code: 'TT_PREVIOUS_RESPONSE_NOT_FOUND', param: 'previous_response_id' });
    expect(error.message).toMatch(/resp_nope.*not found/);
    expect(setup.gateway.store.listCalls('unknown-previous')).toEqual([]);
  });

  it('keeps nothing with store: false, and a response is not found from another session', async () => {
    const stored = await clientFor('owner').responses.create({ model: MODEL, input: QUESTION, tools: TOOLS });
    const unstored = await clientFor('owner').responses.create({ model: MODEL, input: QUESTION, tools: TOOLS, store: false });
    for (const [session, id] of [
      ['owner', unstored.id],
      ['intruder', stored.id],
    ] as const) {
      const status = await clientFor(session)
        .responses.create({ model: MODEL, previous_response_id: id, input: 'go on' })
        .then(
          () => 200,
          (error: { status: number }) => error.status,
        );
      expect(status).toBe(400);
    }
  });

  it('streams events the openai ResponseStream helper accumulates into the same final response', async () => {
    const final = await clientFor('helper').responses.stream({ model: MODEL, input: QUESTION, tools: TOOLS }).finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'function_call']);
    expect(JSON.parse(functionCallOf(final).arguments)).toEqual({ city: 'Paris' });
    expect(final.usage?.output_tokens).toBe(setup.sim.log[0]?.completionTokenIds.length);
  });

  it('emits each item as added, deltas and done, with stable ids, and no token ids reach the harness', async () => {
    const { events } = await streamResponse(clientFor('events'), { model: MODEL, input: QUESTION, tools: TOOLS });
    const types = events.map((event) => event.type);
    expect(types.slice(0, 5)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
    ]);
    expect(types).toContain('response.function_call_arguments.delta');
    const tail = ['response.reasoning_text.done', 'response.content_part.done', 'response.output_item.done', 'response.output_item.added'];
    expect(types.filter((type) => tail.includes(type))).toEqual([
      'response.output_item.added',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.output_item.done',
    ]);
    const added = events.filter((event) => event.type === 'response.output_item.added').map((event) => event.item.id);
    const done = events.filter((event) => event.type === 'response.output_item.done').map((event) => event.item.id);
    expect(done).toEqual(added);
    const argumentsDone = events.find((event) => event.type === 'response.function_call_arguments.done');
    expect(argumentsDone).toMatchObject({
      name: 'get_weather',
      arguments: functionCallOf((events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response).arguments,
    });
    expect(JSON.stringify(events)).not.toMatch(/token_ids|logprob"/);
  });
});
