import { describe, expect, it } from 'vitest';
import { readCapture, sseDataLines } from '../gateway/backends/vllm-captures.js';
import { postJson, ssePayloads, sseChunks, startSim } from './sim-test-helpers.js';
import type { SimBackendOptions, SimScript } from '../../sim/index.js';

/**
 * The simulator builds each answer from the reply's structure, with no output parser, so nothing it shares with the
 * gateway vouches for it: these tests hold its answers to real vLLM output (test/fixtures/vllm-captures, see
 * SOURCES.md there), field by field: the keys at each level in order, their types, null versus absent, where token ids
 * and logprobs sit, and the sequence of streamed chunks. Values differ (another model, prompt and run), so the
 * captured values checked are the ones the scripted reply reproduces (tool names and arguments, the "\n\n" content).
 */

/** A value's shape: objects keep their keys in order, arrays show their first element, other values their type. */
function shape(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shape(item)]));
  return typeof value;
}

type Chunk = Record<string, any>;

/** What a chat chunk carries, as vLLM's stream generator builds it. */
function chunkKind(chunk: Chunk): string {
  const choice = chunk.choices[0];
  if (choice === undefined) return 'usage';
  const delta = choice.delta;
  if (delta.role !== undefined) return 'role';
  if (choice.finish_reason !== null) return 'finish';
  if (delta.tool_calls?.[0]?.function?.name !== undefined) return 'tool-name';
  if (delta.tool_calls !== undefined) return 'tool-arguments';
  if (delta.reasoning !== undefined || delta.reasoning_content !== undefined) return 'reasoning';
  if (delta.content !== undefined) return 'content';
  return 'empty';
}

/** The kinds in order, a run of one kind counted once. */
function kindSequence(chunks: Chunk[]): string[] {
  return chunks.map(chunkKind).filter((kind, index, kinds) => kind !== kinds[index - 1]);
}

function firstOfKind(chunks: Chunk[], kind: string): Chunk {
  const found = chunks.find((chunk) => chunkKind(chunk) === kind);
  if (found === undefined) throw new Error(`no ${kind} chunk`);
  return found;
}

function joinedArguments(chunks: Chunk[], index: number): string {
  return chunks
    .flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])
    .filter((call: Chunk) => call.index === index)
    .map((call: Chunk) => call.function.arguments ?? '')
    .join('');
}

/** Every chunk kind both streams have, shaped alike. */
function expectSameChunkShapes(ours: Chunk[], captured: Chunk[]): void {
  for (const kind of new Set(kindSequence(captured))) {
    expect(shape(firstOfKind(ours, kind)), `${kind} chunk`).toEqual(shape(firstOfKind(captured, kind)));
  }
}

async function streamFrom(
  options: SimBackendOptions,
  script: SimScript,
  request: Record<string, unknown>,
): Promise<{ chunks: Chunk[]; payloads: string[] }> {
  const { sim, url } = await startSim({ ...options, script });
  try {
    const body = await (await postJson(`${url}/v1/chat/completions`, { ...request, stream: true })).text();
    return { chunks: sseChunks(body), payloads: ssePayloads(body) };
  } finally {
    await sim.close();
  }
}

async function bodyFrom(options: SimBackendOptions, script: SimScript, path: string, request: Record<string, unknown>): Promise<Chunk> {
  const { sim, url } = await startSim({ ...options, script });
  try {
    return (await (await postJson(`${url}${path}`, request)).json()) as Chunk;
  } finally {
    await sim.close();
  }
}

/** The JSON of a capture that was cut short: the text from `{"id"` up to `cutBefore`, closed. */
function truncatedBody(fileName: string, cutBefore: string): Chunk {
  const text = readCapture(fileName);
  const start = text.indexOf('{"id"');
  return JSON.parse(`${text.slice(start, text.indexOf(cutBefore, start))}}`) as Chunk;
}

const ADD_TODO = {
  type: 'function',
  function: {
    name: 'add_todo',
    parameters: { type: 'object', properties: { task: { type: 'string' }, time: { type: 'string' } }, required: ['task'] },
  },
};
const RUN_COMMAND = {
  type: 'function',
  function: {
    name: 'run_command',
    parameters: { type: 'object', properties: { cwd: { type: 'string' }, command: { type: 'string' } }, required: ['command'] },
  },
};

describe('a Qwen3 reasoning + tool-call stream against vLLM (Cloudflare capture: old vLLM, continuous usage)', () => {
  const captured = sseDataLines(readCapture('vllm-chat-stream-toolcalls-reasoning-cloudflare-qwen3-trimmed.sse'));
  const capturedChunks = captured.filter((line) => line !== '[DONE]').map((line) => JSON.parse(line) as Chunk);
  const capturedArguments = joinedArguments(capturedChunks, 0);
  const model = capturedChunks[0]!.model as string;
  // the capture's server: reasoning under reasoning_content, swallowed tokens not sent, unrequested ids null
  const options: SimBackendOptions = {
    modelName: model,
    reasoningField: 'reasoning_content',
    dropStreamedToolCallIds: true,
    unrequestedTokenIds: 'null',
  };
  const request = {
    model,
    messages: [{ role: 'user', content: 'Add a todo: go to the library tomorrow at 2pm.' }],
    tools: [ADD_TODO],
    stream_options: { include_usage: true, continuous_usage_stats: true },
  };
  const toolCall = { name: 'add_todo', arguments: JSON.parse(capturedArguments) as Record<string, unknown> };

  it('sends the same chunk sequence: role, reasoning, the "\\n\\n" content, the call named, its arguments, finish, usage', async () => {
    const { chunks, payloads } = await streamFrom(
      options,
      { replies: [{ reasoning: 'Okay, the user wants a todo. I should do it.', toolCalls: [toolCall] }] },
      request,
    );
    expect(kindSequence(chunks)).toEqual(kindSequence(capturedChunks));
    expect(kindSequence(chunks)).toEqual(['role', 'reasoning', 'content', 'tool-name', 'tool-arguments', 'finish', 'usage']);
    expect(payloads.at(-1)).toBe(captured.at(-1));
    expectSameChunkShapes(chunks, capturedChunks);

    // the reasoning opens with the "\n" after <think>; the content before the call is the "\n\n" after </think>
    expect(firstOfKind(chunks, 'reasoning').choices[0].delta).toEqual(firstOfKind(capturedChunks, 'reasoning').choices[0].delta);
    expect(firstOfKind(chunks, 'content').choices[0].delta).toEqual(firstOfKind(capturedChunks, 'content').choices[0].delta);
    const named = firstOfKind(chunks, 'tool-name').choices[0].delta.tool_calls[0];
    const capturedNamed = firstOfKind(capturedChunks, 'tool-name').choices[0].delta.tool_calls[0];
    expect({ ...named, id: 'id' }).toEqual({ ...capturedNamed, id: 'id' });
    expect(named.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
    expect(capturedNamed.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
    expect(joinedArguments(chunks, 0)).toBe(capturedArguments);
    expect(firstOfKind(chunks, 'finish').choices).toEqual(firstOfKind(capturedChunks, 'finish').choices);
    // continuous usage: every chunk counts the tokens so far, the usage chunk all of them
    const last = chunks.at(-1)!;
    expect(last.usage.completion_tokens).toBe(chunks.at(-2)!.usage.completion_tokens);
    expect(chunks.map((chunk) => chunk.usage.completion_tokens)).toEqual(
      [...chunks.map((chunk) => chunk.usage.completion_tokens)].sort((a, b) => a - b),
    );
  });

  it('streams parallel calls the same way, each under its own index: named once, then its arguments', async () => {
    const second = { name: 'add_todo', arguments: { task: 'return the books' } };
    const { chunks } = await streamFrom(options, { replies: [{ reasoning: 'Two todos.', toolCalls: [toolCall, second] }] }, request);
    expect(kindSequence(chunks)).toEqual([
      'role',
      'reasoning',
      'content',
      'tool-name',
      'tool-arguments',
      'tool-name',
      'tool-arguments',
      'finish',
      'usage',
    ]);
    expectSameChunkShapes(chunks, capturedChunks);
    const names = chunks.filter((chunk) => chunkKind(chunk) === 'tool-name').map((chunk) => chunk.choices[0].delta.tool_calls[0]);
    expect(names.map((call) => [call.index, call.function.name])).toEqual([
      [0, 'add_todo'],
      [1, 'add_todo'],
    ]);
    expect(names[0].id).not.toBe(names[1].id);
    expect([joinedArguments(chunks, 0), joinedArguments(chunks, 1)]).toEqual([capturedArguments, '{"task": "return the books"}']);
  });

  it('answers the same calls non-streamed: tool_calls with id, type and function, arguments as the stream joined them', async () => {
    const second = { name: 'add_todo', arguments: { task: 'return the books' } };
    const { stream_options: _streamOnly, ...nonStreamed } = request;
    const body = await bodyFrom(
      options,
      { replies: [{ reasoning: 'Two todos.', toolCalls: [toolCall, second] }] },
      '/v1/chat/completions',
      nonStreamed,
    );
    const [choice] = body.choices;
    expect(choice.finish_reason).toBe('tool_calls');
    // what vLLM streams as content before the first call is the message content
    expect(choice.message.content).toBe(firstOfKind(capturedChunks, 'content').choices[0].delta.content);
    expect(choice.message.reasoning_content).toBe('\nTwo todos.\n');
    expect(shape(choice.message.tool_calls[0])).toEqual({ id: 'string', type: 'string', function: { name: 'string', arguments: 'string' } });
    expect(choice.message.tool_calls.map((call: Chunk) => call.function)).toEqual([
      { name: 'add_todo', arguments: capturedArguments },
      { name: 'add_todo', arguments: '{"task": "return the books"}' },
    ]);
    expect(choice.message.tool_calls[0].id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
  });
});

describe('a Hermes tool-call stream without reasoning against vLLM (ask-openai capture: vLLM 0.8, no usage)', () => {
  const lines = readCapture('vllm-chat-stream-toolcalls-hermes-v0.8-askopenai.md').split('\n');
  const capturedChunks = lines
    .filter((line) => line.includes('on_stdout data: data: {'))
    .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as Chunk);

  it('sends role, the call named, its arguments and the finish chunk, with no token-id fields', async () => {
    const options: SimBackendOptions = { unrequestedTokenIds: 'absent', dropStreamedToolCallIds: true };
    const request = {
      messages: [{ role: 'user', content: 'please list files' }],
      tools: [RUN_COMMAND],
      chat_template_kwargs: { enable_thinking: false },
    };
    const { chunks, payloads } = await streamFrom(
      options,
      { replies: [{ toolCalls: [{ name: 'run_command', arguments: { command: 'ls' } }] }] },
      request,
    );
    expect(kindSequence(capturedChunks)).toEqual(['role', 'tool-name', 'tool-arguments', 'finish']);
    expect(kindSequence(chunks)).toEqual(kindSequence(capturedChunks));
    expect(payloads.at(-1)).toBe('[DONE]');
    expectSameChunkShapes(chunks, capturedChunks);
    expect(joinedArguments(chunks, 0)).toBe(joinedArguments(capturedChunks, 0));
    expect(firstOfKind(chunks, 'finish').choices).toEqual(firstOfKind(capturedChunks, 'finish').choices);
  });
});

describe('non-streamed chat bodies against vLLM', () => {
  it('lays out reasoning + content like the gpt-oss capture: message fields, token_ids in the choice, prompt_token_ids on top', async () => {
    const captured = truncatedBody('vllm-chat-nonstream-gptoss-reasoning-prompt_token_ids-issue28246.txt', ',"prompt_token_ids":[');
    const request = { messages: [{ role: 'user', content: 'Hello!' }], return_token_ids: true };
    const body = await bodyFrom(
      { reasoningField: 'reasoning_content' },
      { replies: [{ reasoning: 'The user says hello.', content: 'Hello! How can I help you today?' }] },
      '/v1/chat/completions',
      request,
    );
    const capturedKeys = Object.keys(captured);
    expect(Object.keys(body).slice(0, capturedKeys.length)).toEqual(capturedKeys);
    // the capture is cut inside prompt_token_ids, which comes next
    expect(Object.keys(body)[capturedKeys.length]).toBe('prompt_token_ids');
    expect(body.prompt_token_ids).toEqual(expect.arrayContaining([expect.any(Number)]));
    // the capture's token_ids is null (vLLM bug #28246); asked for, the ids sit in the same place
    expect({ ...(shape(body.choices[0]) as object), token_ids: 'null' }).toEqual(shape(captured.choices[0]));
    expect(body.choices[0].token_ids.at(-1)).toBe(151645);
    expect(body.usage.completion_tokens).toBe(body.choices[0].token_ids.length);
    expect(body.choices[0].message.tool_calls).toEqual([]);
    expect(body.choices[0].message.content).toBe('\n\nHello! How can I help you today?');
  });

  it('lays out logprobs.content like the logprobs capture: token, logprob, bytes, top_logprobs of the same keys', async () => {
    const captured = truncatedBody('vllm-chat-nonstream-logprobs-special-token-pr17637.txt', ',"usage"');
    const request = { messages: [{ role: 'user', content: ' ' }], logprobs: true, top_logprobs: 2, chat_template_kwargs: { enable_thinking: false } };
    const body = await bodyFrom({}, { replies: [{ content: '{}' }] }, '/v1/chat/completions', request);
    const [ours, theirs] = [body.choices[0].logprobs, captured.choices[0].logprobs];
    expect(shape(ours.content[0])).toEqual(shape(theirs.content[0]));
    expect(shape(ours.content[0].top_logprobs[0])).toEqual(shape(theirs.content[0].top_logprobs[0]));
    expect(ours.content[0].top_logprobs).toHaveLength(2);
    expect(ours.content[0].top_logprobs[0]).toEqual({ token: ours.content[0].token, logprob: ours.content[0].logprob, bytes: ours.content[0].bytes });
    expect(ours.content).toHaveLength(body.usage.completion_tokens);
  });
});

describe('a non-streamed completion against vLLM (v0.25.1 capture)', () => {
  it('puts token_ids, prompt_logprobs, prompt_token_ids and routed_experts inside the choice', async () => {
    const text = readCapture('vllm-completions-nonstream-v0.25.1-per-choice-fields.txt');
    const captured = JSON.parse(text.slice(text.indexOf('{"id"'), text.lastIndexOf('}') + 1)) as Chunk;
    const body = await bodyFrom({}, { replies: [{ text: ' Paris.' }] }, '/v1/completions', { prompt: 'The capital of France is' });
    expect(shape(body.choices[0])).toEqual(shape(captured.choices[0]));
    // top level: the same fields in the same order; `metrics` is newer than the vLLM the simulator follows
    expect(Object.keys(body)).toEqual(Object.keys(captured).filter((key) => key !== 'metrics'));
    expect(shape(body.usage)).toEqual(shape(captured.usage));
  });
});
