import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

/** The two file tools the example agent offers the model. */
export const FILE_TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write text to a file in the working directory.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a text file from the working directory.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

export interface ToolAgentOptions {
  /** an OpenAI-compatible base URL, e.g. a tokentap session's `session.openai.baseURL` (http://127.0.0.1:4000/s/ID/v1) */
  baseURL: string;
  /** the session key (`session.apiKey`): it selects the session whatever the base URL */
  apiKey?: string;
  model: string;
  task: string;
  /** files are read and written only inside this folder */
  workdir: string;
  stream?: boolean;
  maxTurns?: number;
}

export interface ToolAgentResult {
  answer: string;
  turns: number;
  messages: ChatCompletionMessageParam[];
}

function insideWorkdir(workdir: string, path: string): string {
  const full = resolve(workdir, path);
  if (full !== resolve(workdir) && !full.startsWith(resolve(workdir) + sep)) throw new Error(`path outside the working directory: ${path}`);
  return full;
}

function runTool(workdir: string, name: string, argumentsJson: string): string {
  try {
    const args = JSON.parse(argumentsJson) as { path?: string; content?: string };
    if (name === 'write_file') {
      const file = insideWorkdir(workdir, String(args.path));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, String(args.content ?? ''));
      return `wrote ${String(args.content ?? '').length} bytes to ${args.path}`;
    }
    if (name === 'read_file') return readFileSync(insideWorkdir(workdir, String(args.path)), 'utf8');
    return `unknown tool ${name}`;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

async function complete(client: OpenAI, options: ToolAgentOptions, messages: ChatCompletionMessageParam[]) {
  if (!options.stream) {
    const completion = await client.chat.completions.create({ model: options.model, messages, tools: FILE_TOOLS });
    return completion.choices[0]?.message;
  }
  // the SDK's stream helper assembles content and tool-call deltas into one message
  const stream = client.chat.completions.stream({ model: options.model, messages, tools: FILE_TOOLS });
  const completion = await stream.finalChatCompletion();
  return completion.choices[0]?.message;
}

/**
 * A minimal tool-using agent on the official `openai` client: it loops model call -> tool calls -> results
 * until the model answers without tools. Give it a tokentap session (`session.openai` is `{ baseURL, apiKey }`)
 * and every call is recorded in that session.
 *
 * @example
 * const session = await gateway.createSession({ task: { prompt: 'Write hello.txt' } });
 * const result = await runToolAgent({ ...session.openai, model: 'Qwen/Qwen3-8B', task: 'Write hello.txt', workdir: '/tmp/w' });
 * await session.reward(result.answer.includes('hello') ? 1 : 0);
 */
export async function runToolAgent(options: ToolAgentOptions): Promise<ToolAgentResult> {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey ?? 'not-needed', maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a careful coding agent. Use the file tools, then answer briefly.' },
    { role: 'user', content: options.task },
  ];
  const maxTurns = options.maxTurns ?? 8;
  for (let turn = 1; turn <= maxTurns; turn++) {
    const message = await complete(client, options, messages);
    if (message === undefined) throw new Error('the model returned no choice');
    const toolCalls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
    messages.push({ role: 'assistant', content: message.content ?? '', ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
    if (toolCalls.length === 0) return { answer: message.content ?? '', turns: turn, messages };
    for (const call of toolCalls) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: runTool(options.workdir, call.function.name, call.function.arguments) });
    }
  }
  throw new Error(`no final answer after ${maxTurns} turns`);
}
