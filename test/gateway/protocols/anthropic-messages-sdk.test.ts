import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { SimScript } from '../../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import { expectCallsMatchSim } from '../../helpers/expect-calls-match-sim.js';

/** Claude Code's proof task (shared/fixtures/harness-captures/README.md): one Bash call, then a final answer. */
const PROOF_SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: 'tokentap-ok' }, times: 'forever', reasoning: 'The command worked.', content: 'DONE tokentap-ok' },
    {
      match: { lastUserContains: 'proof' },
      times: 'forever',
      reasoning: 'I should run it.',
      toolCalls: [{ name: 'Bash', arguments: { command: 'echo tokentap-ok' } }],
    },
  ],
  otherwise: 'error',
};

const TOOLS = [
  {
    name: 'Bash',
    description: 'Runs a shell command.',
    input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(script: SimScript = PROOF_SCRIPT): Promise<{ setup: GatewayWithSim; client: Anthropic }> {
  setup = await startGatewayWithSim({ script }, { model: 'Qwen/Qwen3-8B' });
  return { setup, client: new Anthropic({ baseURL: `${setup.url}/s/proof`, apiKey: 'sk-ant-harness', maxRetries: 0 }) };
}

function params(messages: MessageParam[]): MessageCreateParamsNonStreaming {
  return {
    model: 'claude-test-model',
    max_tokens: 2000,
    system: 'You are a careful agent.',
    messages,
    tools: TOOLS,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    metadata: { user_id: 'user-7' },
  };
}

/** A tool agent on the real SDK: answer every tool_use with its result until the model stops calling tools. */
async function runAgent(client: Anthropic, stream: boolean): Promise<Message[]> {
  const messages: MessageParam[] = [{ role: 'user', content: 'Run the proof command' }];
  const answers: Message[] = [];
  for (let turn = 0; turn < 4; turn++) {
    const message = stream ? await client.messages.stream(params(messages)).finalMessage() : await client.messages.create(params(messages));
    answers.push(message);
    messages.push({ role: 'assistant', content: message.content as MessageParam['content'] });
    const toolUses = message.content.filter((block) => block.type === 'tool_use');
    if (toolUses.length === 0) break;
    messages.push({
      role: 'user',
      content: toolUses.map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: 'tokentap-ok' })),
    });
  }
  return answers;
}

describe('the @anthropic-ai/sdk client through the gateway, tool_use -> tool_result -> text with thinking', () => {
  for (const stream of [false, true]) {
    it(`parses Anthropic messages and records every call token-exact (${stream ? 'messages.stream' : 'messages.create'})`, async () => {
      const { setup, client } = await start();
      const [toolTurn, finalTurn] = await runAgent(client, stream);

      expect(toolTurn?.stop_reason).toBe('tool_use');
      expect(toolTurn?.model).toBe('claude-test-model');
      expect(toolTurn?.id).toMatch(/^msg_/);
      // vLLM's "\n\n" between </think> and <tool_call> is no text block
      expect(toolTurn?.content.map((block) => block.type)).toEqual(['thinking', 'tool_use']);
      expect(toolTurn?.content[0]).toMatchObject({ thinking: '\nI should run it.\n', signature: expect.stringMatching(/^tokentap\./) });
      expect(toolTurn?.content[1]).toMatchObject({
        name: 'Bash',
        input: { command: 'echo tokentap-ok' },
        id: expect.stringMatching(/^toolu_[A-Za-z0-9_-]+$/),
      });
      expect(finalTurn?.stop_reason).toBe('end_turn');
      expect(finalTurn?.content.map((block) => block.type)).toEqual(['thinking', 'text']);
      expect(finalTurn?.content[1]?.type === 'text' && finalTurn.content[1].text.trim()).toBe('DONE tokentap-ok');

      const log = setup.sim.log;
      expect([toolTurn?.usage, finalTurn?.usage]).toEqual(
        log.map((record) => ({
          input_tokens: record.promptTokenIds.length,
          output_tokens: record.completionTokenIds.length,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        })),
      );
      const calls = setup.gateway.store.listCalls('proof');
      expect(calls.map((call) => [call.status, call.frontDoor, call.stream, call.requestedModel, call.backendModel])).toEqual([
        ['ok', 'anthropic-messages', stream, 'claude-test-model', 'Qwen/Qwen3-8B'],
        ['ok', 'anthropic-messages', stream, 'claude-test-model', 'Qwen/Qwen3-8B'],
      ]);
      expectCallsMatchSim(calls, log);
      // the translated history renders the first turn exactly as sampled: prompt 2 extends prompt 1 + completion 1
      const firstTurn = [...(log[0]?.promptTokenIds ?? []), ...(log[0]?.completionTokenIds ?? [])];
      expect(log[1]?.promptTokenIds.slice(0, firstTurn.length)).toEqual(firstTurn);
    });
  }

  it('records the harness body as sent, the translated backend body, and Anthropic metadata', async () => {
    const { setup, client } = await start();
    await client.messages.create(params([{ role: 'user', content: 'Run the proof command' }]));
    const [call] = setup.gateway.store.listCalls('proof');
    expect(call?.metadata).toMatchObject({
      thinkingType: 'enabled',
      anthropicUserId: 'user-7',
      'anthropic-version': expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      sessionSource: 'path',
    });
    expect(JSON.stringify(call?.metadata)).not.toContain('sk-ant-harness');
    const bodies = setup.gateway.store.getCallBodies(call?.id ?? '');
    expect(bodies?.requestBody).toEqual(params([{ role: 'user', content: 'Run the proof command' }]));
    expect(bodies?.backendRequestBody).toEqual({
      model: 'Qwen/Qwen3-8B',
      messages: [
        { role: 'system', content: 'You are a careful agent.' },
        { role: 'user', content: 'Run the proof command' },
      ],
      tools: [{ type: 'function', function: { name: 'Bash', description: 'Runs a shell command.', parameters: TOOLS[0]?.input_schema } }],
      max_tokens: 2000,
      chat_template_kwargs: { enable_thinking: true },
      return_token_ids: true,
      logprobs: true,
    });
  });

  it('streams Anthropic events in order with contiguous block indices (create with stream: true)', async () => {
    const { client } = await start();
    const events = await client.messages.create({ ...params([{ role: 'user', content: 'Run the proof command' }]), stream: true });
    const seen: string[] = [];
    for await (const event of events) {
      if (event.type === 'content_block_start' || event.type === 'content_block_stop') seen.push(`${event.type}:${event.index}`);
      else if (event.type === 'content_block_delta') seen.push(`${event.delta.type}:${event.index}`);
      else seen.push(event.type);
    }
    const compact = seen.filter((entry, index) => entry !== seen[index - 1]);
    expect(compact).toEqual([
      'message_start',
      'content_block_start:0',
      'thinking_delta:0',
      'signature_delta:0',
      'content_block_stop:0',
      'content_block_start:1',
      'input_json_delta:1',
      'content_block_stop:1',
      'message_delta',
      'message_stop',
    ]);
  });

  it('answers with the same tool_use id in a stream and in the recorded body of the same call', async () => {
    const { setup, client } = await start();
    const message = await client.messages.stream(params([{ role: 'user', content: 'Run the proof command' }])).finalMessage();
    const toolUse = message.content.find((block) => block.type === 'tool_use');
    const [call] = setup.gateway.store.listCalls('proof');
    const recorded = setup.gateway.store.getCallBodies(call?.id ?? '')?.responseBody as {
      choices: Array<{ message: { tool_calls: Array<{ id: string }> } }>;
    };
    expect(toolUse?.id).toBe(`toolu_${recorded.choices[0]?.message.tool_calls[0]?.id}`);
  });

  it('reports stop sequences and max_tokens as Anthropic stop reasons', async () => {
    const { client } = await start({ replies: [{ times: 'forever', content: 'alpha beta STOP gamma' }] });
    const stopped = await client.messages.create({
      model: 'claude-x',
      max_tokens: 50,
      stop_sequences: ['STOP'],
      messages: [{ role: 'user', content: 'go' }],
      thinking: { type: 'disabled' },
    });
    expect(stopped).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: 'STOP' });
    const cut = await client.messages
      .stream({ model: 'claude-x', max_tokens: 2, messages: [{ role: 'user', content: 'go' }], thinking: { type: 'disabled' } })
      .finalMessage();
    expect(cut).toMatchObject({ stop_reason: 'max_tokens', stop_sequence: null, usage: { output_tokens: 2 } });
  });

  it('counts tokens with the backend tokenizer: count_tokens equals the prompt the backend renders', async () => {
    const { setup, client } = await start();
    const request = params([{ role: 'user', content: 'Run the proof command' }]);
    const { max_tokens: _maxTokens, metadata: _metadata, ...countParams } = request;
    const counted = await client.messages.countTokens(countParams);
    await client.messages.create(request);
    expect(counted.input_tokens).toBe(setup.sim.log[0]?.promptTokenIds.length);
    expect(setup.gateway.store.listCalls('proof')).toHaveLength(1);
  });
});
