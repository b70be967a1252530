import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import type { ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';
import { makeMistralToolCallId, TOOL_CALLS } from './parse-mistral-tool-calls.js';

/** The token between a v11+ call's name and its arguments (a special token: in text decoded with special tokens). */
export const ARGS = '[ARGS]';

/**
 * Reads Mistral tool calls as tokenizers v11 and later write them, `content[TOOL_CALLS]NAME[ARGS]{…}[TOOL_CALLS]NAME[ARGS]{…}`,
 * as vLLM's `mistral` parser does for such a tokenizer (`MistralToolParser.extract_tool_calls`, the `>= v11` branch,
 * vllm/tool_parsers/mistral_tool_parser.py at 023f36c6; a Hugging Face tokenizer counts as v11 when `[ARGS]` is in its
 * vocabulary): without `[TOOL_CALLS]` the text is content; else each piece after a `[TOOL_CALLS]` that holds a `{` is a
 * call, its name the text before the first `{` with `[ARGS]` taken out (not trimmed), its arguments the rest verbatim
 * (not checked as JSON: vLLM keeps a malformed call a call, so the model sees what it tried), each a fresh
 * nine-character id; a piece without `{` is dropped. The content is the text before the first marker, null when empty.
 *
 * @example
 * parseMistralV11ToolCalls('[TOOL_CALLS]ls[ARGS]{"path": "."}').toolCalls[0].function; // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseMistralV11ToolCalls(text: string): { toolCalls: ParsedToolCall[]; content: string | null } {
  if (!text.includes(TOOL_CALLS)) return { toolCalls: [], content: text };
  const [content, ...pieces] = text.split(TOOL_CALLS);
  const toolCalls: ParsedToolCall[] = [];
  for (const piece of pieces) {
    const brace = piece.indexOf('{');
    if (brace === -1) continue;
    const name = piece.slice(0, brace).replaceAll(ARGS, '');
    toolCalls.push({ id: makeMistralToolCallId(), type: 'function', function: { name, arguments: piece.slice(brace) } });
  }
  return { toolCalls, content: content === '' ? null : content! };
}

/** Feeds the growing completion text; answers what is new since the last call, or null. */
export interface MistralV11ToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

/**
 * Streams v11+ Mistral tool calls as vLLM's `mistral` parser does for such a tokenizer (`_extract_tool_calls_streaming`
 * and `_generate_delta_tool_call`, mistral_tool_parser.py at 023f36c6): until `[TOOL_CALLS]` has come every delta is
 * content (a delta holding the first marker sends the text before it as content, and loses any further marker in it,
 * as vLLM joins the rest); after a marker the name is gathered until a delta brings `{`, which sends the name (without
 * `[ARGS]`) with a fresh id and the arguments text from that `{`; every later delta is more arguments, verbatim, up to
 * the next `[TOOL_CALLS]`, which starts the next call. Nothing comes after the calls as content: it is all arguments.
 *
 * @example
 * const stream = createMistralV11ToolCallStream();
 * stream.push('[TOOL_CALLS]ls[ARGS]{"'); // { toolCalls: [{ index: 0, type: 'function', id, function: { name: 'ls', arguments: '{"' } }] }
 */
export function createMistralV11ToolCallStream(): MistralV11ToolCallStream {
  let previousText = '';
  const calls = new CallWriter();
  return {
    push(currentText) {
      let deltaText = currentText.slice(previousText.length);
      previousText = currentText;
      if (!currentText.includes(TOOL_CALLS)) return deltaText === '' ? null : { content: deltaText };
      let content = '';
      if (calls.state === 'content') {
        if (!deltaText.includes(TOOL_CALLS)) return deltaText === '' ? null : { content: deltaText };
        if (!deltaText.startsWith(TOOL_CALLS)) {
          // vLLM: content is the text before the marker, and the delta becomes the marker + the other pieces joined
          const [before, ...rest] = deltaText.split(TOOL_CALLS);
          content = before!;
          deltaText = TOOL_CALLS + rest.join('');
        }
      }
      const toolCalls = calls.write(deltaText);
      const delta: { content?: string; toolCalls?: DeltaToolCall[] } = {};
      if (content !== '') delta.content = content;
      if (toolCalls.length > 0) delta.toolCalls = toolCalls;
      return delta.content === undefined && delta.toolCalls === undefined ? null : delta;
    },
  };
}

/** vLLM's streaming states for v11+ calls: before the first marker, reading a name, reading arguments, after a call. */
type V11State = 'content' | 'name' | 'arguments' | 'complete';

/** The calls of a v11+ stream, one delta's text at a time (vLLM's `_generate_delta_tool_call`). */
class CallWriter {
  state: V11State = 'content';
  private index = -1;
  /** the name gathered so far; null once it went out */
  private name: string | null = null;

  write(text: string): DeltaToolCall[] {
    if (text === '') return [];
    let id: string | undefined;
    if (this.state !== 'name' && this.state !== 'arguments' && text.startsWith(TOOL_CALLS)) {
      this.index++;
      this.state = 'name';
      text = text.slice(TOOL_CALLS.length);
    }
    if (this.state === 'name') {
      this.name ??= '';
      const brace = text.indexOf('{');
      if (brace === -1) {
        // the name goes out once it is complete: when the arguments start
        this.name += text;
        return [];
      }
      id = makeMistralToolCallId();
      this.name = (this.name + text.slice(0, brace)).replaceAll(ARGS, '');
      text = text.slice(brace);
      this.state = 'arguments';
    }
    if (this.state !== 'arguments') return [];
    const marker = text.indexOf(TOOL_CALLS);
    const argumentsText = marker === -1 ? text : text.slice(0, marker);
    if (marker !== -1) this.state = 'complete';
    const deltas: DeltaToolCall[] = [];
    // vLLM: `if self.current_tool_name or delta_arguments`, name left out of the delta once sent (exclude_none)
    if ((this.name !== null && this.name !== '') || argumentsText !== '') {
      const delta: DeltaToolCall = { index: this.index, type: 'function', function: {} };
      if (id !== undefined) delta.id = id;
      if (this.name !== null) delta.function.name = this.name;
      delta.function.arguments = argumentsText;
      deltas.push(delta);
      this.name = null;
    }
    if (marker !== -1) deltas.push(...this.write(text.slice(marker)));
    return deltas;
  }
}
