import { createHermesToolCallStream, type DeltaToolCall } from './create-hermes-tool-call-stream.js';
import { createQwen3ReasoningStream } from './create-qwen3-reasoning-stream.js';

/** What one streamed delta carries after parsing. */
export interface ChatStreamDelta {
  reasoning?: string;
  content?: string;
  toolCalls?: DeltaToolCall[];
}

export interface Qwen3ChatStreamParser {
  /** the parsed delta for this piece of text, or null when the parser swallowed it (tags, partial JSON) */
  push(deltaText: string): ChatStreamDelta | null;
  /** true once any tool-call delta was produced (vLLM then reports finish_reason "tool_calls") */
  readonly toolCallsStreamed: boolean;
}

/**
 * The streaming counterpart of `parseQwen3ChatOutput`: each delta goes through the reasoning parser and
 * the content part of it through the Hermes tool-call stream, which sees only the content accumulated
 * since reasoning ended.
 *
 * @example
 * const parser = createQwen3ChatStreamParser({ parseToolCalls: true });
 * tokenTexts.map((text) => parser.push(text));
 */
export function createQwen3ChatStreamParser(options: { parseToolCalls: boolean }): Qwen3ChatStreamParser {
  const reasoningStream = createQwen3ReasoningStream();
  const toolStream = options.parseToolCalls ? createHermesToolCallStream() : null;
  let contentSoFar = '';
  let toolCallsStreamed = false;
  return {
    get toolCallsStreamed() {
      return toolCallsStreamed;
    },
    push(deltaText) {
      const split = reasoningStream.push(deltaText);
      if (split === null) return null;
      const delta: ChatStreamDelta = {};
      if (split.reasoning !== undefined) delta.reasoning = split.reasoning;
      if (split.content !== undefined) {
        if (toolStream === null) {
          delta.content = split.content;
        } else {
          contentSoFar += split.content;
          const tools = toolStream.push(contentSoFar);
          if (tools?.content !== undefined) delta.content = tools.content;
          if (tools?.toolCalls !== undefined) {
            delta.toolCalls = tools.toolCalls;
            toolCallsStreamed = true;
          }
        }
      }
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}
