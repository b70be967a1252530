import type Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/** The one tool of the model-family sessions. */
export const READ_FILE_TOOL = {
  type: 'function' as const,
  function: {
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
};

/** What the `index`-th tool call of turn `turn` (both from 0) is answered with, and whether that is a tool error. */
export type ToolResult = (turn: number, index: number) => { content: string; isError: boolean };

export interface ToolLoopOptions {
  /** the user's first message */
  question: string;
  /** the user's later messages, one sent after each answer without tool calls while any are left */
  followUps?: readonly string[];
  /** assistant turns in all, over every user message */
  turns: number;
  stream: boolean;
  result: ToolResult;
}

/**
 * A tool loop through Chat Completions with the real openai client: each turn's assistant message goes back into the
 * history with a `tool` message per call. Returns each turn's message and finish reason.
 *
 * @example const { answers, finishes } = await chatToolLoop(client, 'm', { question, turns: 3, stream: true, result })
 */
export async function chatToolLoop(
  client: OpenAI,
  model: string,
  options: ToolLoopOptions,
): Promise<{ answers: OpenAI.Chat.Completions.ChatCompletionMessage[]; finishes: string[] }> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: options.question }];
  const followUps = [...(options.followUps ?? [])];
  const answers: OpenAI.Chat.Completions.ChatCompletionMessage[] = [];
  const finishes: string[] = [];
  for (let turn = 0; turn < options.turns; turn++) {
    const params = { model, messages, tools: [READ_FILE_TOOL] };
    const choice = options.stream
      ? (await client.chat.completions.stream({ ...params, stream: true }).finalChatCompletion()).choices[0]!
      : (await client.chat.completions.create(params)).choices[0]!;
    answers.push(choice.message);
    finishes.push(choice.finish_reason);
    messages.push(choice.message as ChatCompletionMessageParam);
    for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: options.result(turn, index).content });
    }
    const next = (choice.message.tool_calls ?? []).length === 0 ? followUps.shift() : undefined;
    if (next !== undefined) messages.push({ role: 'user', content: next });
  }
  return { answers, finishes };
}

/**
 * A tool loop through Anthropic Messages with the real SDK: each turn's content goes back as the assistant turn, and
 * its tool_use blocks are answered in one user turn of tool_result blocks (`is_error` where the result says so).
 *
 * @example const answers = await anthropicToolLoop(client, { question, turns: 3, stream: false, result })
 */
export async function anthropicToolLoop(client: Anthropic, options: ToolLoopOptions): Promise<Message[]> {
  const messages: MessageParam[] = [{ role: 'user', content: options.question }];
  const followUps = [...(options.followUps ?? [])];
  const answers: Message[] = [];
  const tool = {
    name: READ_FILE_TOOL.function.name,
    description: READ_FILE_TOOL.function.description,
    input_schema: READ_FILE_TOOL.function.parameters as Anthropic.Tool['input_schema'],
  };
  for (let turn = 0; turn < options.turns; turn++) {
    const params = { model: 'claude-test', max_tokens: 1000, messages, tools: [tool] };
    const message = options.stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
    answers.push(message);
    messages.push({ role: 'assistant', content: message.content as MessageParam['content'] });
    const uses = message.content.filter((block) => block.type === 'tool_use');
    const next = uses.length === 0 ? followUps.shift() : undefined;
    if (next !== undefined) messages.push({ role: 'user', content: next });
    if (uses.length === 0) continue;
    messages.push({
      role: 'user',
      content: uses.map((block, index) => {
        const { content, isError } = options.result(turn, index);
        return { type: 'tool_result' as const, tool_use_id: block.id, content, is_error: isError };
      }),
    });
  }
  return answers;
}

/**
 * A tool loop through the Responses API with the real openai client (`client.responses.create`, streamed or not; a
 * stream's answer is its `response.completed` event's response): each turn's output items go back into the input,
 * followed by a `function_call_output` per function call (Responses has no error flag: a tool error is its text).
 * Returns each turn's response.
 *
 * @example const responses = await responsesToolLoop(client, 'm', { question, turns: 3, stream: true, result })
 */
export async function responsesToolLoop(client: OpenAI, model: string, options: ToolLoopOptions): Promise<OpenAI.Responses.Response[]> {
  const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: options.question }];
  const followUps = [...(options.followUps ?? [])];
  const tool = { type: 'function' as const, strict: false, ...READ_FILE_TOOL.function };
  const responses: OpenAI.Responses.Response[] = [];
  for (let turn = 0; turn < options.turns; turn++) {
    const response = options.stream
      ? await completedResponse(await client.responses.create({ model, input, tools: [tool], stream: true }))
      : await client.responses.create({ model, input, tools: [tool] });
    responses.push(response);
    input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
    const calls = response.output.filter((item) => item.type === 'function_call');
    for (const [index, call] of calls.entries()) {
      input.push({ type: 'function_call_output', call_id: call.call_id, output: options.result(turn, index).content });
    }
    const next = calls.length === 0 ? followUps.shift() : undefined;
    if (next !== undefined) input.push({ role: 'user', content: next });
  }
  return responses;
}

async function completedResponse(events: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>): Promise<OpenAI.Responses.Response> {
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of events) if (event.type === 'response.completed') completed = event.response;
  if (completed === undefined) throw new Error('the stream ended without response.completed');
  return completed;
}

/**
 * A response's output as what the model said: its function calls (name and arguments) and its message text, null
 * where it has none.
 *
 * @example responses.map(responseSaid) // [{ calls: [{ name: 'read_file', arguments: '{"path": "a"}' }], text: null }]
 */
export function responseSaid(response: OpenAI.Responses.Response): { calls: unknown; text: string | null } {
  const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, arguments: item.arguments }] : []));
  const parts = response.output.flatMap((item) => (item.type === 'message' ? item.content : []));
  const text = parts.map((part) => (part.type === 'output_text' ? part.text : '')).join('');
  return { calls: calls.length === 0 ? null : calls, text: parts.length === 0 ? null : text };
}

/**
 * A Chat Completions message's function calls, or null without any (vLLM's whole answer has `tool_calls: []`, a stream
 * none).
 *
 * @example answers.map(functionCalls) // [[{ name: 'read_file', arguments: '{"path": "a"}' }], null]
 */
export function functionCalls(answer: OpenAI.Chat.Completions.ChatCompletionMessage): unknown {
  return answer.tool_calls === undefined || answer.tool_calls.length === 0
    ? null
    : answer.tool_calls.map((call) => call.type === 'function' && call.function);
}
