import type { DeltaToolCall } from '../../model-format/families/qwen3/create-hermes-tool-call-stream.js';
import { createHermesToolCallStream } from '../../model-format/families/qwen3/create-hermes-tool-call-stream.js';
import { createQwen3ReasoningStream } from '../../model-format/families/qwen3/create-qwen3-reasoning-stream.js';
import { parseHermesToolCalls, type ParsedToolCall } from '../../model-format/families/qwen3/parse-hermes-tool-calls.js';
import { splitQwen3Reasoning } from '../../model-format/families/qwen3/split-qwen3-reasoning.js';
import { createQwen3CoderToolCallStream, parseQwen3CoderToolCalls } from '../../model-format/families/qwen3/parse-qwen3-coder-tool-calls.js';

export type ReasoningParserName = 'qwen3' | 'none';
export type ToolCallParserName = 'hermes' | 'qwen3-coder' | 'none';

/** A reasoning parser: whole text and streamed deltas (vLLM's `--reasoning-parser`). */
interface ReasoningParser {
  split(text: string): { reasoning: string | null; content: string | null };
  createStream(): { push(deltaText: string): { reasoning?: string; content?: string } | null };
}

/** A tool-call parser; the stream is fed the whole content so far (vLLM's `--tool-call-parser`). */
interface ToolCallParser {
  parse(content: string, tools: readonly unknown[]): { toolCalls: ParsedToolCall[]; content: string | null };
  createStream(tools: readonly unknown[]): { push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null };
}

/** The registry: add a parser here and to the config enum to make it selectable. */
const REASONING_PARSERS: Record<ReasoningParserName, ReasoningParser> = {
  qwen3: { split: splitQwen3Reasoning, createStream: createQwen3ReasoningStream },
  none: { split: (text) => ({ reasoning: null, content: text }), createStream: () => ({ push: (text) => (text === '' ? null : { content: text }) }) },
};

const TOOL_CALL_PARSERS: Record<Exclude<ToolCallParserName, 'none'>, ToolCallParser> = {
  hermes: { parse: (content) => parseHermesToolCalls(content), createStream: () => createHermesToolCallStream() },
  'qwen3-coder': { parse: parseQwen3CoderToolCalls, createStream: createQwen3CoderToolCallStream },
};

export interface OutputParserOptions {
  reasoning: ReasoningParserName;
  toolCalls: ToolCallParserName;
  /** tool definitions of the request; tool calls are parsed only when there are some and tool_choice is not "none" */
  tools: readonly unknown[];
  parseToolCalls: boolean;
}

/** An assistant message read from completion text. */
export interface ParsedOutput {
  reasoning: string | null;
  content: string | null;
  toolCalls: ParsedToolCall[];
}

/** One streamed delta, in chat's field names. */
export interface OutputDelta {
  reasoning?: string;
  content?: string;
  tool_calls?: DeltaToolCall[];
}

/**
 * Reads a whole completion as vLLM's chat endpoint would: the reasoning parser first, then the tool-call parser on
 * the content that remains (tool parsers never see reasoning).
 *
 * @example parseOutput('<think>\nx\n</think>\n\nHi', { reasoning: 'qwen3', toolCalls: 'hermes', tools: [], parseToolCalls: false })
 */
export function parseOutput(text: string, options: OutputParserOptions): ParsedOutput {
  const { reasoning, content } = REASONING_PARSERS[options.reasoning].split(text);
  const tools = toolCallParser(options);
  if (tools === null || content === null) return { reasoning, content, toolCalls: [] };
  const parsed = tools.parse(content, options.tools);
  return { reasoning, content: parsed.content, toolCalls: parsed.toolCalls };
}

export interface OutputStreamParser {
  /** the delta for one piece of streamed text, or null when the parsers held it back (tags, partial JSON) */
  push(deltaText: string): OutputDelta | null;
  /** at the end: content still held back that turned out not to start a tool call */
  finish(): OutputDelta | null;
  /** true once a tool-call delta went out (finish_reason then becomes "tool_calls", as in vLLM) */
  readonly toolCallsSeen: boolean;
}

/**
 * The streaming counterpart of parseOutput, for one completion.
 *
 * @example const parser = createOutputStreamParser(options); chunks.map((chunk) => parser.push(chunk.text))
 */
export function createOutputStreamParser(options: OutputParserOptions): OutputStreamParser {
  const reasoning = REASONING_PARSERS[options.reasoning].createStream();
  const tools = toolCallParser(options)?.createStream(options.tools) ?? null;
  let contentSoFar = '';
  let contentSent = 0;
  let toolCallsSeen = false;
  return {
    get toolCallsSeen() {
      return toolCallsSeen;
    },
    push(deltaText) {
      const split = reasoning.push(deltaText);
      if (split === null) return null;
      const delta: OutputDelta = {};
      if (split.reasoning !== undefined) delta.reasoning = split.reasoning;
      if (split.content !== undefined && tools === null) delta.content = split.content;
      if (split.content !== undefined && tools !== null) {
        contentSoFar += split.content;
        const parsed = tools.push(contentSoFar);
        if (parsed?.content !== undefined) {
          delta.content = parsed.content;
          contentSent += parsed.content.length;
        }
        if (parsed?.toolCalls !== undefined) {
          delta.tool_calls = parsed.toolCalls;
          toolCallsSeen = true;
        }
      }
      return Object.keys(delta).length === 0 ? null : delta;
    },
    finish() {
      if (tools === null || toolCallsSeen || contentSent >= contentSoFar.length) return null;
      const rest = contentSoFar.slice(contentSent);
      contentSent = contentSoFar.length;
      return { content: rest };
    },
  };
}

function toolCallParser(options: OutputParserOptions): ToolCallParser | null {
  if (!options.parseToolCalls || options.toolCalls === 'none' || options.tools.length === 0) return null;
  return TOOL_CALL_PARSERS[options.toolCalls];
}
