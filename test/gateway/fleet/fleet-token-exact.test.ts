import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../../reconstruct/index.js';
import type { SimScript } from '../../../sim/index.js';
import type { SimReply } from '../../../sim/render-reply-text.js';
import type { CallRow } from '../../../store/types.js';
import { MODEL, STEP_RESPONSES_TOOL, STEP_TOOL } from '../../token-faithful/token-faithful-fixtures.js';
import { expectCallMatchesItsReplica, sessionPlacedOn, startSimFleet, type SimFleet } from './fleet-fixtures.js';

/** The Completions front door's prompts carry this; chat prompts never do (and token-id prompts have no text). */
const COMPLETION_MARKER = 'Continue the log line:';
const COMPLETION_TEXT = ' the river keeps its course.';
const PAIRS = 8;
const TEMPERATURE = 0.6;

function stepReply(step: number): SimReply {
  return { reasoning: `Step ${step}: I read the note.`, toolCalls: [{ name: 'read_step', arguments: { step, label: `note ${step}` } }] };
}
function answerReply(step: number): SimReply {
  return { reasoning: 'Every note is read.', content: `Answer ${step}: all notes are read.` };
}

/**
 * Each replica answers its chat calls in order (a token-id prompt has no text to match on): a tool call, then the
 * answer, for each session it serves in turn; Completions prompts get one line of text.
 */
const SCRIPT: SimScript = {
  replies: [
    { match: { promptContains: COMPLETION_MARKER }, times: 'forever', text: COMPLETION_TEXT },
    ...Array.from({ length: PAIRS }, (_, index) => [stepReply(index + 1), answerReply(index + 1)]).flat(),
  ],
  otherwise: 'error',
};

/** What one harness turn received, in plain fields. */
interface HarnessTurn {
  reasoning: string;
  text: string;
  toolCalls: Array<{ name: string; arguments: string }>;
}

type FrontDoor = 'chat-whole' | 'chat-stream' | 'messages-whole' | 'messages-stream' | 'responses-stream' | 'completions';

/** Which replica each session is placed on, per mode: each flavour sees streamed and whole calls of each front door. */
const PLACEMENTS: Record<'plain' | 'faithful', Record<FrontDoor, string>> = {
  plain: {
    'chat-whole': 'vllm-1',
    'chat-stream': 'sglang-1',
    'messages-whole': 'vllm-2',
    'messages-stream': 'sglang-2',
    'responses-stream': 'vllm-1',
    completions: 'sglang-1',
  },
  faithful: {
    'chat-whole': 'sglang-1',
    'chat-stream': 'vllm-1',
    'messages-whole': 'sglang-2',
    'messages-stream': 'vllm-2',
    'responses-stream': 'sglang-2',
    completions: 'vllm-2',
  },
};

const REPLICA_IDS = ['vllm-1', 'vllm-2', 'sglang-1', 'sglang-2'];

let fleet: SimFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

describe('a fleet of four simulators (2 vLLM, 2 SGLang) behind one gateway, driven by the openai and Anthropic clients', () => {
  for (const mode of ['plain', 'faithful'] as const) {
    it(`records every call token-exact against the replica that served it, one replica per session (${mode === 'plain' ? 'plain' : 'token-faithful'} mode)`, async () => {
      fleet = await startSimFleet(
        REPLICA_IDS.map((id, index) => ({
          flavour: id.startsWith('sglang') ? 'sglang' : 'vllm',
          // seeds differ, so each replica's logprobs are its own
          sim: { seed: index + 1, ...(id.startsWith('sglang') ? { weightVersion: 'w-7' } : {}) },
        })),
        { model: MODEL, logLevel: 'silent', ...(mode === 'faithful' ? { tokenFaithful: ['*'], modelDir: qwen3TokenizerDir() } : {}) },
      );
      // the script is set once the start-up probe's one-token generation is done (it would take the first reply)
      for (const replica of fleet.replicas) replica.sim.setScript(SCRIPT);

      const sessions = new Map<FrontDoor, { id: string; turns: HarnessTurn[] }>();
      for (const [frontDoor, replicaId] of Object.entries(PLACEMENTS[mode]) as Array<[FrontDoor, string]>) {
        const id = sessionPlacedOn(`${mode}-${frontDoor}`, replicaId, REPLICA_IDS);
        sessions.set(frontDoor, { id, turns: await runSession(fleet, frontDoor, id) });
      }

      const allCalls: CallRow[] = [];
      for (const [frontDoor, { id, turns }] of sessions) {
        const calls = fleet.gateway.store.listCalls(id);
        expect(calls, id).toHaveLength(2);
        allCalls.push(...calls);
        expect(new Set(calls.map((call) => call.backendId)), `${id} keeps to one replica`).toEqual(new Set([PLACEMENTS[mode][frontDoor]]));
        calls.forEach((call, index) => {
          const record = expectCallMatchesItsReplica(fleet!, call);
          expectHarnessGotTheGeneration(turns[index]!, record, frontDoor);
          const replica = fleet!.replica(call.backendId!);
          expect(record.endpoint).toBe(expectedEndpoint(mode, frontDoor, replica.flavour));
          // SGLang reports its weight version on /generate and whole OpenAI bodies; its streamed completions chunks carry none
          const reportsWeightVersion = replica.flavour === 'sglang' && !(record.endpoint === 'completions' && call.stream);
          expect(call.weightVersion).toBe(reportsWeightVersion ? 'w-7' : null);
          // recorded in one vocabulary whichever flavour served it (SGLang's /generate nests them as sampling_params)
          expect(call.samplingParams, `${id} call ${call.seq}`).toMatchObject({ temperature: TEMPERATURE });
        });
        if (mode === 'faithful' && frontDoor !== 'completions') {
          expect(calls.map((call) => (call.metadata.tokenFaithful as { mode: string }).mode)).toEqual(['fresh', 'extend']);
          const samples = reconstructSession(fleet.gateway.store, id, { strategy: 'merge' });
          expect(samples, `${id} exports as one sample`).toHaveLength(1);
          expect(verifySample(samples[0]!, calls)).toEqual({ ok: true });
        }
      }
      // every generation of every replica is one recorded call: nothing was sent twice or lost
      expect(REPLICA_IDS.map((id) => fleet!.records(id).length)).toEqual(
        REPLICA_IDS.map((id) => allCalls.filter((call) => call.backendId === id).length),
      );
      expect(new Set(allCalls.map((call) => call.backendId))).toEqual(new Set(REPLICA_IDS));
    }, 60_000);
  }
});

function expectedEndpoint(mode: 'plain' | 'faithful', frontDoor: FrontDoor, flavour: string): string {
  if (frontDoor === 'completions') return 'completions';
  if (mode === 'plain') return 'chat';
  return flavour === 'sglang' ? 'generate' : 'completions';
}

/** The harness received what the simulator generated: the scripted reply it answered with, and on chat its exact strings. */
function expectHarnessGotTheGeneration(
  turn: HarnessTurn,
  record: {
    scriptEntry: number | null;
    endpoint: string;
    text: string;
    content: string | null;
    toolCalls: Array<{ name: string; arguments: string }>;
  },
  frontDoor: FrontDoor,
): void {
  expect(record.scriptEntry).not.toBeNull();
  const reply = SCRIPT.replies[record.scriptEntry!]!;
  if (frontDoor === 'completions') {
    expect(turn.text).toBe(COMPLETION_TEXT);
    expect(turn.text).toBe(record.text);
    return;
  }
  expect(turn.reasoning.trim()).toBe(reply.reasoning);
  expect(turn.toolCalls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown }))).toEqual(reply.toolCalls ?? []);
  expect(turn.text.trim()).toBe(reply.content ?? '');
  if (record.endpoint !== 'chat') return;
  // the simulator's own chat message, string for string, where the front door passes it on as is
  if (frontDoor.startsWith('chat')) expect(turn.text).toBe(record.content ?? '');
  if (frontDoor !== 'messages-whole' && frontDoor !== 'messages-stream') expect(turn.toolCalls).toEqual(record.toolCalls);
}

async function runSession(fleet: SimFleet, frontDoor: FrontDoor, session: string): Promise<HarnessTurn[]> {
  if (frontDoor === 'completions') return completionsSession(fleet, session);
  if (frontDoor === 'messages-whole' || frontDoor === 'messages-stream') return messagesSession(fleet, session, frontDoor === 'messages-stream');
  if (frontDoor === 'responses-stream') return responsesSession(fleet, session);
  return chatSession(fleet, session, frontDoor === 'chat-stream');
}

function openai(fleet: SimFleet, session: string): OpenAI {
  return new OpenAI({ baseURL: fleet.openaiBase(session), apiKey: 'unused', maxRetries: 0, timeout: 20_000 });
}

async function chatSession(fleet: SimFleet, session: string, stream: boolean): Promise<HarnessTurn[]> {
  const client = openai(fleet, session);
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: `Read the notes (${session}).` }];
  const turns: HarnessTurn[] = [];
  for (let turn = 0; turn < 2; turn++) {
    const request = { model: MODEL, messages, tools: [STEP_TOOL], temperature: TEMPERATURE };
    const received = stream ? await streamedChatTurn(client, request) : await wholeChatTurn(client, request);
    turns.push(received);
    messages.push({
      role: 'assistant',
      content: received.text,
      ...(received.toolCalls.length > 0
        ? { tool_calls: received.toolCalls.map((call, index) => ({ id: `call-${index}`, type: 'function' as const, function: call })) }
        : {}),
    });
    received.toolCalls.forEach((_, index) => messages.push({ role: 'tool', tool_call_id: `call-${index}`, content: 'noted' }));
  }
  return turns;
}

type ChatRequest = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

/** vLLM names the field `reasoning`, SGLang `reasoning_content`: the harness reads whichever came. */
function reasoningOf(fields: Record<string, unknown>): string {
  const value = fields.reasoning ?? fields.reasoning_content;
  return typeof value === 'string' ? value : '';
}

async function wholeChatTurn(client: OpenAI, request: ChatRequest): Promise<HarnessTurn> {
  const message = (await client.chat.completions.create(request)).choices[0]!.message;
  return {
    reasoning: reasoningOf(message as unknown as Record<string, unknown>),
    text: message.content ?? '',
    toolCalls: (message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ name: call.function.name, arguments: call.function.arguments }] : [],
    ),
  };
}

async function streamedChatTurn(client: OpenAI, request: ChatRequest): Promise<HarnessTurn> {
  const turn: HarnessTurn = { reasoning: '', text: '', toolCalls: [] };
  for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) {
    const delta = chunk.choices[0]?.delta;
    if (delta === undefined) continue;
    turn.reasoning += reasoningOf(delta as unknown as Record<string, unknown>);
    turn.text += delta.content ?? '';
    for (const call of delta.tool_calls ?? []) {
      const target = (turn.toolCalls[call.index] ??= { name: '', arguments: '' });
      target.name += call.function?.name ?? '';
      target.arguments += call.function?.arguments ?? '';
    }
  }
  return turn;
}

const ANTHROPIC_TOOLS = [
  { name: 'read_step', description: 'Read the note of one step.', input_schema: STEP_TOOL.function.parameters as Anthropic.Tool['input_schema'] },
];

async function messagesSession(fleet: SimFleet, session: string, stream: boolean): Promise<HarnessTurn[]> {
  const client = new Anthropic({ baseURL: `${fleet.url}/s/${session}`, apiKey: 'sk-ant-fake', maxRetries: 0, timeout: 20_000 });
  const messages: MessageParam[] = [{ role: 'user', content: `Read the notes (${session}).` }];
  const turns: HarnessTurn[] = [];
  for (let turn = 0; turn < 2; turn++) {
    const params = {
      model: 'claude-test',
      max_tokens: 2000,
      temperature: TEMPERATURE,
      messages,
      tools: ANTHROPIC_TOOLS,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
    };
    const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    turns.push({
      reasoning: message.content.map((block) => (block.type === 'thinking' ? block.thinking : '')).join(''),
      text: message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
      toolCalls: message.content.flatMap((block) =>
        block.type === 'tool_use' ? [{ name: block.name, arguments: JSON.stringify(block.input) }] : [],
      ),
    });
    messages.push({ role: 'assistant', content: message.content as MessageParam['content'] });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    if (uses.length > 0)
      messages.push({ role: 'user', content: uses.map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: 'noted' })) });
  }
  return turns;
}

async function responsesSession(fleet: SimFleet, session: string): Promise<HarnessTurn[]> {
  const client = openai(fleet, session);
  const tools = [STEP_RESPONSES_TOOL];
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: `Read the notes (${session}).` }];
  const turns: HarnessTurn[] = [];
  for (let turn = 0; turn < 2; turn++) {
    const response = await client.responses.stream({ model: MODEL, input, tools, temperature: TEMPERATURE }).finalResponse();
    turns.push({
      reasoning: response.output
        .flatMap((item) => (item.type === 'reasoning' ? [...(item.content ?? []), ...item.summary] : []))
        .map((part) => part.text)
        .join(''),
      text: response.output
        .flatMap((item) => (item.type === 'message' ? item.content : []))
        .map((part) => (part.type === 'output_text' ? part.text : ''))
        .join(''),
      toolCalls: response.output.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, arguments: item.arguments }] : [])),
    });
    input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
    for (const item of response.output)
      if (item.type === 'function_call') input.push({ type: 'function_call_output', call_id: item.call_id, output: 'noted' });
  }
  return turns;
}

async function completionsSession(fleet: SimFleet, session: string): Promise<HarnessTurn[]> {
  const client = openai(fleet, session);
  const whole = await client.completions.create({
    model: MODEL,
    prompt: `${COMPLETION_MARKER} first (${session})`,
    max_tokens: 32,
    temperature: TEMPERATURE,
  });
  let streamed = '';
  for await (const chunk of await client.completions.create({
    model: MODEL,
    prompt: `${COMPLETION_MARKER} second (${session})`,
    max_tokens: 32,
    temperature: TEMPERATURE,
    stream: true,
  }))
    streamed += chunk.choices[0]?.text ?? '';
  return [whole.choices[0]!.text, streamed].map((text) => ({ reasoning: '', text, toolCalls: [] }));
}
