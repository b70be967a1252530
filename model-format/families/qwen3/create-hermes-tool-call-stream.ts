import { isCompleteJson } from '../is-complete-json.js';
import { makeToolCallId, TOOL_CALL_END, TOOL_CALL_START } from './parse-hermes-tool-calls.js';

/** One entry of a streamed `delta.tool_calls`, keys in vLLM's order. */
export interface DeltaToolCall {
  id?: string;
  type?: 'function';
  index: number;
  function: { name?: string; arguments?: string };
}

export interface HermesStreamDelta {
  content?: string;
  toolCalls?: DeltaToolCall[];
}

/** Feeds the growing completion text; answers what is new since the last call, or null. */
export interface HermesToolCallStream {
  push(currentText: string): HermesStreamDelta | null;
}

/**
 * Streams Hermes tool calls the way vLLM's `hermes` parser does (`extract_tool_calls_streaming`): on every
 * delta it re-reads the whole text, sends content that cannot be the start of `<tool_call>`, then for each
 * call first `{id, type, index, function: {name}}` once the name is complete and afterwards the new part of
 * the raw `arguments` text. Tag tokens and JSON punctuation around them produce nothing (null).
 *
 * @example
 * const stream = createHermesToolCallStream();
 * stream.push('<tool_call>\n{"name": "ls"'); // { toolCalls: [{ id, type: 'function', index: 0, function: { name: 'ls' } }] }
 * stream.push('<tool_call>\n{"name": "ls", "arguments": {"p'); // { toolCalls: [{ index: 0, function: { arguments: '{"p' } }] }
 */
export function createHermesToolCallStream(): HermesToolCallStream {
  let sentContentIndex = 0;
  const namesSent: string[] = [];
  const argumentsSent: string[] = [];
  return {
    push(currentText) {
      const content = unsentContent(currentText, sentContentIndex);
      if (content !== null) sentContentIndex = content.end;
      const toolCalls: DeltaToolCall[] = [];
      const regions = toolCallRegions(currentText);
      for (const [index, region] of regions.entries()) {
        if (namesSent[index] === undefined) {
          const name = /"name"\s*:\s*"([^"]+)"/.exec(region.json)?.[1];
          // a call cannot start before the one ahead of it has its name
          if (name === undefined) break;
          namesSent[index] = name;
          argumentsSent[index] = '';
          toolCalls.push({ id: makeToolCallId(), type: 'function', index, function: { name } });
        }
        const argumentsText = extractArguments(region.json, region.complete);
        const already = argumentsSent[index] ?? '';
        if (argumentsText !== null && argumentsText.length > already.length) {
          toolCalls.push({ index, function: { arguments: argumentsText.slice(already.length) } });
          argumentsSent[index] = argumentsText;
        }
      }
      if (content === null && toolCalls.length === 0) return null;
      const delta: HermesStreamDelta = {};
      if (content !== null) delta.content = content.text;
      if (toolCalls.length > 0) delta.toolCalls = toolCalls;
      return delta;
    },
  };
}

/** Text not yet sent that precedes any `<tool_call>`, holding back a suffix that may become the tag. */
function unsentContent(text: string, sentIndex: number): { text: string; end: number } | null {
  const tagAt = text.indexOf(TOOL_CALL_START);
  const sendable = tagAt !== -1 ? tagAt : text.length - partialTagOverlap(text, TOOL_CALL_START);
  return sendable > sentIndex ? { text: text.slice(sentIndex, sendable), end: sendable } : null;
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag` (vLLM's `partial_tag_overlap`). */
export function partialTagOverlap(text: string, tag: string): number {
  for (let length = Math.min(text.length, tag.length - 1); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}

function toolCallRegions(text: string): Array<{ json: string; complete: boolean }> {
  const regions: Array<{ json: string; complete: boolean }> = [];
  let position = 0;
  for (;;) {
    const start = text.indexOf(TOOL_CALL_START, position);
    if (start === -1) break;
    const jsonStart = start + TOOL_CALL_START.length;
    const end = text.indexOf(TOOL_CALL_END, jsonStart);
    if (end !== -1) {
      regions.push({ json: text.slice(jsonStart, end).trim(), complete: true });
      position = end + TOOL_CALL_END.length;
      continue;
    }
    let raw = text.slice(jsonStart);
    raw = raw.slice(0, raw.length - partialTagOverlap(raw, TOOL_CALL_END)).trim();
    regions.push({ json: raw, complete: raw !== '' && isCompleteJson(raw) });
    break;
  }
  return regions;
}

/** The raw `arguments` value: up to its matching close bracket, or all that has arrived so far. */
function extractArguments(json: string, complete: boolean): string | null {
  const match = /"arguments"\s*:\s*/.exec(json);
  if (match === null) return null;
  let raw = json.slice(match.index + match[0].length);
  const open = raw[0];
  if (open !== '{' && open !== '[') {
    if (complete) {
      raw = raw.trimEnd();
      if (raw.endsWith('}')) raw = raw.slice(0, -1).trimEnd();
    }
    return raw;
  }
  const close = open === '{' ? '}' : ']';
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < raw.length; index++) {
    const character = raw[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === open) depth++;
    else if (character === close && --depth === 0) return raw.slice(0, index + 1);
  }
  return raw;
}
