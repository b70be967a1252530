import { harmonyToolsSection, type HarmonyTool } from './harmony-tool-types.js';
import type { RenderChatOptions } from '../../chat-template/render-chat-options.js';
import { isRecord } from '../../../core/json/is-record.js';
import { readReasoning } from '../../backend-fields/read-reasoning.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';

/** One Harmony message before rendering (openai/harmony `chat::Message`, text content only). */
interface HarmonyMessage {
  /** the role, or for tool results the tool's name (`functions.get_weather`) */
  author: string;
  recipient?: string;
  channel?: string;
  /** e.g. `<|constrain|>json` */
  contentType?: string;
  content: string;
}

/** `SystemContent::new()` defaults in openai/harmony (python/openai_harmony/__init__.py `SystemContent`). */
const MODEL_IDENTITY = 'You are ChatGPT, a large language model trained by OpenAI.';
const KNOWLEDGE_CUTOFF = '2024-06';
const CHANNELS_LINE = '# Valid channels: analysis, commentary, final. Channel must be included for every message.';
const FUNCTIONS_CHANNEL_LINE = "Calls to these tools must go to the commentary channel: 'functions'.";

/**
 * Renders OpenAI chat messages in the Harmony format as openai/harmony's `render_conversation_for_completion`
 * does for gpt-oss (src/encoding.rs; docs/format.md): a system message with the library's defaults (identity,
 * knowledge cutoff, `Current date:` when given, `Reasoning:`, the valid channels), one developer message with
 * every system/developer text as `# Instructions` and the tools as a `functions` namespace, then the turns:
 * assistant reasoning on `analysis`, content on `final` (on `commentary` when the same message calls tools), each
 * tool call as `to=functions.NAME` on `commentary` with `<|constrain|>json`, ending `<|call|>`; tool results as
 * `functions.NAME to=assistant` on `commentary`. Analysis before the first final message is dropped when the
 * last assistant message is final (`auto_drop_analysis`). The generation prompt is `<|start|>assistant`.
 *
 * @example
 * renderHarmonyChat([{ role: 'user', content: 'What is 2 + 2?' }], null, { date: '2025-06-28' });
 * // '<|start|>system<|message|>You are ChatGPT, ...<|end|><|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant'
 */
export function renderHarmonyChat(messages: readonly unknown[], tools: readonly unknown[] | null, options: RenderChatOptions = {}): string {
  if (options.continueFinalMessage === true) throw new Error('Harmony rendering does not support continue_final_message');
  const functionTools = (tools ?? []).map(toHarmonyTool);
  const instructions: string[] = [];
  const turns: HarmonyMessage[] = [];
  const toolNames = new Map<string, string>();
  messages.forEach((message, position) => {
    if (!isRecord(message) || typeof message.role !== 'string')
      throw new TokentapError('TT_INVALID_ARGUMENT', { message: `messages[${position}] must be an object with a string role` });
    if (message.role === 'system' || message.role === 'developer') instructions.push(contentText(message.content));
    else turns.push(...toHarmonyTurns(message, toolNames));
  });
  const header: HarmonyMessage[] = [{ author: 'system', content: systemText(options, functionTools.length > 0) }];
  const developer = developerText(instructions, functionTools);
  if (developer !== null) header.push({ author: 'developer', content: developer });
  const text = dropEarlyAnalysis([...header, ...turns])
    .map(renderMessage)
    .join('');
  return options.addGenerationPrompt === false ? text : `${text}<|start|>assistant`;
}

function systemText(options: RenderChatOptions, hasFunctionTools: boolean): string {
  const top = [MODEL_IDENTITY, `Knowledge cutoff: ${KNOWLEDGE_CUTOFF}`];
  if (options.date !== undefined) top.push(`Current date: ${options.date}`);
  const channels = hasFunctionTools ? `${CHANNELS_LINE}\n${FUNCTIONS_CHANNEL_LINE}` : CHANNELS_LINE;
  return [top.join('\n'), `Reasoning: ${options.reasoningEffort ?? 'medium'}`, channels].join('\n\n');
}

function developerText(instructions: readonly string[], tools: readonly HarmonyTool[]): string | null {
  const sections: string[] = [];
  if (instructions.length > 0) sections.push('# Instructions', instructions.join('\n\n'));
  if (tools.length > 0) sections.push(harmonyToolsSection(tools));
  return sections.length > 0 ? sections.join('\n\n') : null;
}

function toHarmonyTurns(message: Record<string, unknown>, toolNames: Map<string, string>): HarmonyMessage[] {
  const content = contentText(message.content);
  if (message.role === 'tool') {
    const name = typeof message.name === 'string' ? message.name : toolNames.get(String(message.tool_call_id));
    if (name === undefined) throw new Error('a tool message names no function and answers no earlier tool call');
    return [{ author: `functions.${name}`, recipient: 'assistant', channel: 'commentary', content }];
  }
  if (message.role !== 'assistant') return [{ author: message.role as string, content }];
  const turns: HarmonyMessage[] = [];
  const reasoning = readReasoning(message);
  if (reasoning !== null && reasoning !== '') turns.push({ author: 'assistant', channel: 'analysis', content: reasoning });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  if (content !== '') turns.push({ author: 'assistant', channel: calls.length > 0 ? 'commentary' : 'final', content });
  for (const call of calls) {
    const fn = isRecord(call.function) ? call.function : {};
    const name = String(fn.name);
    if (typeof call.id === 'string') toolNames.set(call.id, name);
    const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    turns.push({ author: 'assistant', recipient: `functions.${name}`, channel: 'commentary', contentType: '<|constrain|>json', content: args });
  }
  return turns;
}

/** harmony's `auto_drop_analysis` (on by default): src/encoding.rs `render_conversation_into`. */
function dropEarlyAnalysis(messages: HarmonyMessage[]): HarmonyMessage[] {
  const lastAssistant = messages.findLast((message) => message.author === 'assistant');
  if (lastAssistant?.channel !== 'final') return messages;
  const firstFinal = messages.findIndex((message) => message.channel === 'final');
  return messages.filter((message, index) => !(index < firstFinal && message.channel === 'analysis'));
}

/** `<|start|>{author}[ to={recipient}][<|channel|>{channel}][ {content type}]<|message|>{content}<|end|> or <|call|>` */
function renderMessage(message: HarmonyMessage): string {
  let text = `<|start|>${message.author}`;
  if (message.recipient !== undefined && message.recipient !== 'all') text += ` to=${message.recipient}`;
  if (message.channel !== undefined) text += `<|channel|>${message.channel}`;
  if (message.contentType !== undefined) text += ` ${message.contentType}`;
  const end = message.author === 'assistant' && message.recipient !== undefined ? '<|call|>' : '<|end|>';
  return `${text}<|message|>${message.content}${end}`;
}

function toHarmonyTool(tool: unknown): HarmonyTool {
  const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : {};
  return {
    name: String(fn.name),
    description: typeof fn.description === 'string' ? fn.description : '',
    parameters: fn.parameters ?? null,
  };
}

/** Text of a message's content: a string, or its text parts joined with "\n" (as vLLM joins them). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part === 'string' ? part : isRecord(part) && typeof part.text === 'string' ? part.text : null))
    .filter((text): text is string => text !== null)
    .join('\n');
}
