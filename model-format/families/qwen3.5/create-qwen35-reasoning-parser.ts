import type { FamilyReasoningParser, ReasoningRequest } from '../model-family.js';

const THINK_START = '<think>';
const THINK_END = '</think>';
const TOOL_CALL = '<tool_call>';

/** Reasoning and answer of one completion; null where vLLM reports None. */
export interface Qwen35ReasoningSplit {
  reasoning: string | null;
  content: string | null;
}

/**
 * True when the request's prompt opens a think block: `chat_template_kwargs.enable_thinking` when the request sets it
 * (any JSON value, read as Python's truth), else the template's default (`thinkingByDefault`).
 *
 * @example qwen35Thinking({ chatTemplateKwargs: { enable_thinking: false } }, true) // false
 */
export function qwen35Thinking(request: ReasoningRequest | undefined, thinkingByDefault: boolean): boolean {
  const kwargs = request?.chatTemplateKwargs ?? null;
  if (kwargs === null || !('enable_thinking' in kwargs) || kwargs.enable_thinking === undefined) return thinkingByDefault;
  const value = kwargs.enable_thinking;
  return value !== null && value !== false && value !== 0 && value !== '';
}

/**
 * The Qwen3.5 reading of vLLM's `qwen3` reasoning parser (vllm/reasoning/qwen3_reasoning_parser.py since the Qwen3.5
 * change, PR #34779): the template puts `<think>\n` in the prompt, so the completion starts inside the reasoning and only
 * `</think>` (or a `<tool_call>` written before it, the parser's implicit end) closes it. Thinking off (the prompt ends
 * `<think>\n\n</think>\n\n`) every token is content, as vLLM's server routes it once the prompt has ended the
 * reasoning (`prompt_is_reasoning_end`). vLLM decides "off" from `chat_template_kwargs.enable_thinking` (default on) or
 * from the prompt; here from the same switch, whose default is the template's own (`thinkingByDefault`: Qwen3.5-0.8B's
 * template thinks only when `enable_thinking` is true).
 *
 * @example
 * createQwen35ReasoningParser({ thinkingByDefault: true }).split('sum it\n</think>\n\n3'); // { reasoning: 'sum it\n', content: '\n\n3' }
 */
export function createQwen35ReasoningParser(options: { thinkingByDefault: boolean }): FamilyReasoningParser {
  return {
    name: 'qwen3',
    split: (text, request) => (qwen35Thinking(request, options.thinkingByDefault) ? splitThinking(text) : { reasoning: null, content: text }),
    createStream: (request) => (qwen35Thinking(request, options.thinkingByDefault) ? thinkingStream() : contentStream()),
  };
}

/**
 * vLLM's `extract_reasoning` with thinking on: the text after a `<think>` the model wrote itself (older templates), up
 * to `</think>` (or up to a `<tool_call>` before it, which stays in the content) is reasoning; the rest is content, null
 * when empty. With neither, the completion was cut inside its reasoning: all of it is reasoning.
 */
function splitThinking(text: string): Qwen35ReasoningSplit {
  const start = text.indexOf(THINK_START);
  const output = start === -1 ? text : text.slice(start + THINK_START.length);
  const end = output.indexOf(THINK_END);
  const toolCall = output.indexOf(TOOL_CALL);
  if (end === -1 && toolCall === -1) return { reasoning: output, content: null };
  if (end !== -1 && (toolCall === -1 || end <= toolCall)) {
    const content = output.slice(end + THINK_END.length);
    return { reasoning: output.slice(0, end), content: content === '' ? null : content };
  }
  return { reasoning: toolCall === 0 ? null : output.slice(0, toolCall), content: output.slice(toolCall) };
}

/**
 * vLLM's `extract_reasoning_streaming` with thinking on, read on text (`<think>`, `</think>` and `<tool_call>` are single
 * tokens in Qwen's vocabulary, so each comes whole inside one delta): a `<think>` is cut off with what precedes it; the
 * delta holding `</think>` splits there (the tag yields nothing), the one holding `<tool_call>` splits before it; until
 * then every delta is reasoning, afterwards content (vLLM's server stops asking the parser once reasoning ended).
 */
function thinkingStream(): { push(deltaText: string): { reasoning?: string; content?: string } | null } {
  let ended = false;
  return {
    push(deltaText) {
      if (ended) return deltaText === '' ? null : { content: deltaText };
      let text = deltaText;
      const start = text.indexOf(THINK_START);
      if (start !== -1) text = text.slice(start + THINK_START.length);
      const end = text.indexOf(THINK_END);
      const toolCall = end === -1 ? text.indexOf(TOOL_CALL) : -1;
      const cut = end !== -1 ? end : toolCall;
      if (cut === -1) return text === '' ? null : { reasoning: text };
      ended = true;
      const reasoning = text.slice(0, cut);
      const content = text.slice(end !== -1 ? end + THINK_END.length : toolCall);
      const delta: { reasoning?: string; content?: string } = {};
      if (reasoning !== '') delta.reasoning = reasoning;
      if (content !== '') delta.content = content;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

function contentStream(): { push(deltaText: string): { content?: string } | null } {
  return { push: (deltaText) => (deltaText === '' ? null : { content: deltaText }) };
}
