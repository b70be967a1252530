import { isRecord } from '../../../core/json/is-record.js';
import { readReasoning } from '../../../model-format/backend-fields/read-reasoning.js';
import { anthropicId, thinkingSignature, toolUseId } from './anthropic-ids.js';

/** What the answer needs from the request. */
export interface AnthropicAnswerOptions {
  /** the model the harness asked for (Anthropic answers with the requested name) */
  model: string | null;
  /** the request's stop_sequences, to tell a stop sequence from the end of a turn */
  stopSequences: readonly string[];
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/**
 * vLLM usage -> Anthropic usage. Prefix-cache hits (`prompt_tokens_details.cached_tokens`, when vLLM reports
 * them) count as cache reads, as Anthropic splits them: input + cache reads = the whole prompt, which is what
 * Claude Code adds up to track its context window.
 *
 * @example anthropicUsage({ prompt_tokens: 10, completion_tokens: 3 }) // { input_tokens: 10, output_tokens: 3, ... }
 */
export function anthropicUsage(usage: unknown, fallback: { promptTokens: number; completionTokens: number }): AnthropicUsage {
  const record = isRecord(usage) ? usage : {};
  const prompt = typeof record.prompt_tokens === 'number' ? record.prompt_tokens : fallback.promptTokens;
  const details = isRecord(record.prompt_tokens_details) ? record.prompt_tokens_details : {};
  const cached = typeof details.cached_tokens === 'number' ? Math.min(details.cached_tokens, prompt) : 0;
  return {
    input_tokens: prompt - cached,
    output_tokens: typeof record.completion_tokens === 'number' ? record.completion_tokens : fallback.completionTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

/**
 * vLLM's finish -> Anthropic's stop_reason: `length` -> max_tokens; a `stop_reason` string that is one of the
 * request's stop_sequences -> stop_sequence (vLLM reports the matched string there); tool calls -> tool_use
 * (also when a named tool_choice makes vLLM report `stop`); anything else -> end_turn.
 *
 * @example anthropicStopReason({ finishReason: 'tool_calls', stopReason: null, sawToolUse: true }, []) // { stop_reason: 'tool_use', stop_sequence: null }
 */
export function anthropicStopReason(
  finish: { finishReason: unknown; stopReason: unknown; sawToolUse: boolean },
  stopSequences: readonly string[],
): { stop_reason: string; stop_sequence: string | null } {
  if (finish.finishReason === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  if (typeof finish.stopReason === 'string' && stopSequences.includes(finish.stopReason)) {
    return { stop_reason: 'stop_sequence', stop_sequence: finish.stopReason };
  }
  if (finish.finishReason === 'tool_calls' || finish.sawToolUse) return { stop_reason: 'tool_use', stop_sequence: null };
  return { stop_reason: 'end_turn', stop_sequence: null };
}

/** A tool call's arguments as the object Anthropic's `input` must be ({} when the model wrote no valid object). */
function parseInput(argumentsText: unknown): Record<string, unknown> {
  if (typeof argumentsText !== 'string' || argumentsText.trim() === '') return {};
  try {
    const parsed = JSON.parse(argumentsText) as unknown;
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * A whole vLLM chat completion as an Anthropic Message: content in the order the model wrote it (thinking,
 * text, tool_use). Text that is only whitespace (vLLM's "\n\n" between `</think>` and `<tool_call>`) is not a
 * block: Anthropic refuses whitespace-only text when it comes back, and Qwen3's template would render it as an
 * extra "\n", breaking the next prompt's prefix. The stream (anthropic-stream-events.ts) follows the same rules.
 *
 * @example const message = toAnthropicMessage(completion, { model: 'claude-sonnet-4-5', stopSequences: [] })
 */
export function toAnthropicMessage(completion: Record<string, unknown>, options: AnthropicAnswerOptions): Record<string, unknown> {
  const choices = Array.isArray(completion.choices) ? completion.choices : [];
  const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
  const finish = isRecord(choice) ? choice : {};
  const message = isRecord(finish.message) ? finish.message : {};
  const id = anthropicId('msg_', typeof completion.id === 'string' ? completion.id : 'unknown');
  const content: Array<Record<string, unknown>> = [];
  const reasoning = readReasoning(message);
  if (reasoning !== null && reasoning !== '') content.push({ type: 'thinking', thinking: reasoning, signature: thinkingSignature(reasoning) });
  if (typeof message.content === 'string' && message.content.trim() !== '') content.push({ type: 'text', text: message.content });
  const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  toolCalls.forEach((call, position) => {
    const fn = isRecord(call.function) ? call.function : {};
    const backendId = typeof call.id === 'string' ? call.id : undefined;
    content.push({ type: 'tool_use', id: toolUseId(backendId, id, position), name: String(fn.name ?? ''), input: parseInput(fn.arguments) });
  });
  const stop = anthropicStopReason(
    { finishReason: finish.finish_reason, stopReason: finish.stop_reason, sawToolUse: toolCalls.length > 0 },
    options.stopSequences,
  );
  const promptTokens = Array.isArray(completion.prompt_token_ids) ? completion.prompt_token_ids.length : 0;
  const completionTokens = Array.isArray(finish.token_ids) ? finish.token_ids.length : 0;
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: options.model ?? completion.model ?? null,
    content,
    ...stop,
    usage: anthropicUsage(completion.usage, { promptTokens, completionTokens }),
  };
}
