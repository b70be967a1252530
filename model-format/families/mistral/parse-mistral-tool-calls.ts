import { randomInt } from 'node:crypto';
import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';
import type { DeltaToolCall } from '../qwen3/create-hermes-tool-call-stream.js';
import type { ParsedToolCall } from '../qwen3/parse-hermes-tool-calls.js';

/** The token a Mistral tool call starts with (a special token: read from text decoded with special tokens). */
export const TOOL_CALLS = '[TOOL_CALLS]';

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
// vLLM's tool_call_regex, re.DOTALL
const TOOL_CALL_ARRAY = /\[\{[\s\S]*\}\]/;

/**
 * A Mistral tool call id as vLLM makes one (`MistralToolCall.generate_random_id`): nine characters drawn from ASCII
 * letters and digits; Mistral's validator and templates take only such ids.
 *
 * @example makeMistralToolCallId(); // 'aZ3kQ9bX1'
 */
export function makeMistralToolCallId(): string {
  let id = '';
  for (let index = 0; index < 9; index++) id += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return id;
}

/**
 * Reads Mistral tool calls written as tokenizers before v11 write them (what the Mistral 7B v0.3 and Small 3
 * templates render back), `content[TOOL_CALLS] [{"name": …, "arguments": {…}}, …]`, as vLLM's `mistral` parser does
 * (`MistralToolParser.extract_tool_calls`, vllm/tool_parsers/mistral_tool_parser.py): without `[TOOL_CALLS]` the text is
 * content; the text after it, trimmed, is a JSON list (else the first `[{…}]` in it), each call's arguments written
 * back like `json.dumps(ensure_ascii=False)`, each call a fresh nine-character id; the content is the text before the
 * marker (null when empty). When nothing reads as a list, the content is the text after the marker (vLLM's fallback;
 * the text before it is lost). Where vLLM raises (a second `[TOOL_CALLS]`, a list entry that is no `{name, arguments}`
 * object) the whole text is content here.
 *
 * @example
 * parseMistralToolCalls('[TOOL_CALLS] [{"name": "ls", "arguments": {"path": "."}}]').toolCalls[0].function;
 * // { name: 'ls', arguments: '{"path": "."}' }
 */
export function parseMistralToolCalls(text: string): { toolCalls: ParsedToolCall[]; content: string | null } {
  const parts = text.split(TOOL_CALLS);
  if (parts.length === 1) return { toolCalls: [], content: text };
  if (parts.length !== 2) return { toolCalls: [], content: text };
  const content = parts[0]!;
  const written = parts[1]!.trim();
  const list = readList(written) ?? readList(TOOL_CALL_ARRAY.exec(written)?.[0]);
  if (list === null) return { toolCalls: [], content: written };
  const toolCalls: ParsedToolCall[] = [];
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { toolCalls: [], content: text };
    const { name, arguments: args } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || args === undefined) return { toolCalls: [], content: text };
    toolCalls.push({ id: makeMistralToolCallId(), type: 'function', function: { name, arguments: pythonJsonDumps(args) } });
  }
  return { toolCalls, content: content === '' ? null : content };
}

function readList(text: string | undefined): unknown[] | null {
  if (text === undefined) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** Feeds the growing completion text; answers what is new since the last call, or null. */
export interface MistralToolCallStream {
  push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null;
}

/**
 * Streams pre-v11 Mistral tool calls as vLLM's `mistral` parser does (`_extract_tool_calls_streaming_pre_v11_tokenizer`,
 * which feeds the text after `[TOOL_CALLS]` to an ijson event parser): before `[TOOL_CALLS]` every delta is content
 * (a delta holding the marker sends the text before it); after it, each `{` opening an entry of the list starts a
 * call, the name goes out with a fresh nine-character id once its string has closed, then the `arguments` object as
 * the model wrote it, from its `{` to its closing `}` (an `arguments` value that is no object is not streamed). Once
 * the list has closed, the rest is content. The characters are read one by one, keeping state, as ijson does.
 *
 * @example
 * const stream = createMistralToolCallStream();
 * stream.push('[TOOL_CALLS] [{"name": "ls",'); // { toolCalls: [{ index: 0, type: 'function', id, function: { name: 'ls' } }] }
 */
export function createMistralToolCallStream(): MistralToolCallStream {
  let previousText = '';
  const reader = new ListReader();
  return {
    push(currentText) {
      let deltaText = currentText.slice(previousText.length);
      const started = previousText.includes(TOOL_CALLS);
      previousText = currentText;
      if (!currentText.includes(TOOL_CALLS)) return deltaText === '' ? null : { content: deltaText };
      let content = '';
      if (!started) {
        // the delta holding the marker (vLLM: the bot token in delta_token_ids)
        const cut = currentText.indexOf(TOOL_CALLS);
        const deltaStart = currentText.length - deltaText.length;
        content = currentText.slice(deltaStart, cut);
        deltaText = currentText.slice(cut + TOOL_CALLS.length);
      }
      const { toolCalls, after } = reader.read(deltaText);
      content += after;
      const delta: { content?: string; toolCalls?: DeltaToolCall[] } = {};
      if (content !== '') delta.content = content;
      if (toolCalls.length > 0) delta.toolCalls = toolCalls;
      return delta.content === undefined && delta.toolCalls === undefined ? null : delta;
    },
  };
}

/** Reads the JSON list after `[TOOL_CALLS]` a character at a time (the events vLLM's ijson coroutine listens to). */
class ListReader {
  /** nesting: 1 inside the list, 2 inside an entry, more inside a value of an entry */
  private depth = 0;
  private inString = false;
  private escaped = false;
  private stringText = '';
  /** the entry-level string being read is a key (else a value) */
  private stringIsKey = false;
  private key: string | null = null;
  private index = -1;
  private nameSent = false;
  /** the depth the arguments object opened at, or -1 outside it */
  private argumentsDepth = -1;
  private done = false;

  read(text: string): { toolCalls: DeltaToolCall[]; after: string } {
    const calls = new Map<number, DeltaToolCall>();
    const call = (): DeltaToolCall => {
      let entry = calls.get(this.index);
      if (entry === undefined) {
        entry = { index: this.index, type: 'function', function: {} };
        calls.set(this.index, entry);
      }
      return entry;
    };
    for (let position = 0; position < text.length; position++) {
      if (this.done) return { toolCalls: [...calls.values()], after: text.slice(position) };
      const character = text[position]!;
      if (this.argumentsDepth !== -1) {
        const entry = call();
        entry.function.arguments = (entry.function.arguments ?? '') + character;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (character === '\\') this.escaped = true;
        else if (character === '"') {
          this.closeString(call);
          continue;
        }
        this.stringText += character;
        continue;
      }
      if (character === '"') {
        this.inString = true;
        this.stringText = '';
        this.stringIsKey = this.depth === 2 && this.key === null;
      } else if (character === '{' || character === '[') {
        this.depth++;
        if (this.depth === 2 && character === '{') {
          this.index++;
          this.nameSent = false;
          this.key = null;
        } else if (this.depth === 3 && character === '{' && this.key === 'arguments' && this.argumentsDepth === -1) {
          this.argumentsDepth = 3;
          const entry = call();
          entry.function.arguments = (entry.function.arguments ?? '') + character;
        }
      } else if (character === '}' || character === ']') {
        if (this.depth === 3 && this.argumentsDepth === 3) this.argumentsDepth = -1;
        this.depth--;
        if (this.depth === 2) this.key = null;
        if (this.depth === 0) this.done = true;
      } else if (character === ',' && this.depth === 2) {
        this.key = null;
      }
    }
    return { toolCalls: [...calls.values()], after: '' };
  }

  private closeString(call: () => DeltaToolCall): void {
    this.inString = false;
    if (this.depth !== 2) return;
    if (this.stringIsKey) {
      this.key = this.stringText;
      return;
    }
    if (this.key === 'name' && !this.nameSent) {
      const entry = call();
      entry.id = makeMistralToolCallId();
      entry.function.name = readString(this.stringText);
      this.nameSent = true;
    }
  }
}

/** A JSON string's text (between its quotes) as the string it writes; a broken escape is kept as written. */
function readString(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
