import type { DeltaToolCall } from '../../model-format/families/qwen3/create-hermes-tool-call-stream.js';
import type { ParsedToolCall } from '../../model-format/families/qwen3/parse-hermes-tool-calls.js';
import type { FamilyReasoningParser, FamilyToolCallParser, ModelFamily } from '../../model-format/families/model-family.js';
import { DEFAULT_MODEL_FAMILY, familyReasoningParsers } from '../../model-format/families/model-families.js';

/** A family's reasoning parser's name (vLLM's `--reasoning-parser`: `qwen3`), or `none`. */
export type ReasoningParserName = string;
/** One of the family's tool-call parsers (vLLM's `--tool-call-parser`: `hermes`, `qwen3-coder`, ...), or `none`. */
export type ToolCallParserName = string;

const NO_REASONING: Pick<FamilyReasoningParser, 'split' | 'createStream'> = {
  split: (text) => ({ reasoning: null, content: text }),
  createStream: () => ({ push: (text) => (text === '' ? null : { content: text }) }),
};

export interface OutputParserOptions {
  /** the family whose parsers are named below (model-format/families); default Qwen3 */
  family?: ModelFamily;
  reasoning: ReasoningParserName;
  toolCalls: ToolCallParserName;
  /** tool definitions of the request; tool calls are parsed only when there are some and tool_choice is not "none" */
  tools: readonly unknown[];
  parseToolCalls: boolean;
  /** the request's `chat_template_kwargs` (DeepSeek's reasoning parser reads `thinking` there); default none */
  chatTemplateKwargs?: Record<string, unknown> | null;
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
  const { reasoning, content } = reasoningParser(options).split(text, { chatTemplateKwargs: options.chatTemplateKwargs ?? null });
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
  const reasoning = reasoningParser(options).createStream({ chatTemplateKwargs: options.chatTemplateKwargs ?? null });
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

/** The family's reasoning parser by name; `none` (or a family without one) leaves all text content. */
function reasoningParser(options: OutputParserOptions): Pick<FamilyReasoningParser, 'split' | 'createStream'> {
  if (options.reasoning === 'none') return NO_REASONING;
  const family = options.family ?? DEFAULT_MODEL_FAMILY;
  const parser = familyReasoningParsers(family).find((candidate) => candidate.name === options.reasoning);
  if (parser === undefined) throw new Error(`the ${family.name} model family has no reasoning parser ${options.reasoning}`);
  return parser;
}

function toolCallParser(options: OutputParserOptions): FamilyToolCallParser | null {
  if (!options.parseToolCalls || options.toolCalls === 'none' || options.tools.length === 0) return null;
  const family = options.family ?? DEFAULT_MODEL_FAMILY;
  const parser = family.toolCalls[options.toolCalls];
  if (parser === undefined) throw new Error(`the ${family.name} model family has no tool-call parser ${options.toolCalls}`);
  return parser;
}
