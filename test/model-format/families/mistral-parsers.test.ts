import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectFamily, familyByName } from '../../../model-format/families/model-families.js';
import {
  createMistralToolCallStream,
  makeMistralToolCallId,
  parseMistralToolCalls,
} from '../../../model-format/families/mistral/parse-mistral-tool-calls.js';

// The expected outputs below were written by reading vLLM's MistralToolParser (vllm/tool_parsers/mistral_tool_parser.py
// at decc268e, the pre-v11 tokenizer paths: extract_tool_calls and _extract_tool_calls_streaming_pre_v11_tokenizer with
// its ijson coroutine and _split_delta) and tracing it by hand on each text; no vLLM was run here. Streamed cases feed
// one token a delta, as vLLM's engine does. Ids are fresh, compared by shape (nine ASCII letters and digits).
const ID = expect.stringMatching(/^[A-Za-z0-9]{9}$/);

function template(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../fixtures/chat-templates/${name}`, import.meta.url)), 'utf8');
}

/** Feeds the deltas one by one, as the gateway does: the stream gets the whole text so far. */
function streamDeltas(deltas: string[]): unknown[] {
  const stream = createMistralToolCallStream();
  let text = '';
  return deltas.map((delta) => stream.push((text += delta)));
}

describe('the mistral family', () => {
  it('is detected from the Mistral 7B v0.3 and Small 3 templates, or model_type mistral without a template', () => {
    expect(detectFamily({ modelType: 'mistral', template: template('mistral-7b-instruct-v0.3.jinja') })?.name).toBe('mistral');
    expect(detectFamily({ modelType: null, template: template('mistral-small-3.jinja') })?.name).toBe('mistral');
    expect(detectFamily({ modelType: 'mistral', template: '' })?.name).toBe('mistral');
    // other families' templates stay theirs
    expect(detectFamily({ modelType: 'llama', template: template('llama-3.1-json.jinja') })?.name).toBe('llama3');
    expect(detectFamily({ modelType: 'deepseek_v3', template: template('deepseek-v3.1.jinja') })?.name).toBe('deepseek-v3');
  });

  it('has the mistral tool-call parsers (mistral first), the mistral reasoning parser, and reads its output with special tokens', () => {
    const family = familyByName('mistral')!;
    expect(Object.keys(family.toolCalls)).toEqual(['mistral', 'mistral-v11']);
    expect(family.reasoning?.name).toBe('mistral');
    expect(family.keepsSpecialTokens).toBe(true);
  });

  it('makes ids of nine letters and digits, as vLLM does', () => {
    const ids = Array.from({ length: 50 }, makeMistralToolCallId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(new Set(ids).size).toBe(50);
  });
});

describe("Mistral tool calls, whole (vLLM's extract_tool_calls, tokenizers before v11)", () => {
  it('reads the list: parallel calls, arguments re-written like json.dumps, content before the marker', () => {
    const text = 'Checking.[TOOL_CALLS] [{"name": "read_file", "arguments": {"path":"a","n":[1,2]}}, {"name": "ls", "arguments": {}}]';
    expect(parseMistralToolCalls(text)).toEqual({
      content: 'Checking.',
      toolCalls: [
        { id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "a", "n": [1, 2]}' } },
        { id: ID, type: 'function', function: { name: 'ls', arguments: '{}' } },
      ],
    });
  });

  it('keeps text without the marker as content; empty content is null; non-ASCII is written as is', () => {
    expect(parseMistralToolCalls('Hello.')).toEqual({ content: 'Hello.', toolCalls: [] });
    expect(parseMistralToolCalls('[TOOL_CALLS] [{"name": "say", "arguments": {"text": "déjà"}}]')).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'say', arguments: '{"text": "déjà"}' } }],
    });
  });

  it('falls back to the first [{…}] when the text after the marker is not JSON, and to that text as content', () => {
    expect(parseMistralToolCalls('[TOOL_CALLS] [{"name": "ls", "arguments": {"a": 1}}] and more')).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{"a": 1}' } }],
    });
    // nothing reads as a list: the text after the marker, trimmed, is the content (the text before it is lost)
    expect(parseMistralToolCalls('Sure.[TOOL_CALLS] not json ')).toEqual({ content: 'not json', toolCalls: [] });
  });
});

describe("Mistral tool calls, streamed (vLLM's _extract_tool_calls_streaming_pre_v11_tokenizer)", () => {
  it('sends content, each name with its id once its string closes, then the arguments as written, then trailing content', () => {
    const deltas = [
      'Checking.', '[TOOL_CALLS]', ' [{"', 'name', '":', ' "', 'read', '_file', '",', ' "', 'arguments', '":', ' {"',
      'path', '":', ' "', 'a', '"}', '},', ' {"', 'name', '":', ' "ls', '",', ' "arguments', '":', ' {}', '}]', ' Done',
    ]; // prettier-ignore
    const call = (index: number, fn: { name?: string; arguments?: string }, id?: unknown): unknown => ({
      index,
      type: 'function',
      ...(id === undefined ? {} : { id }),
      function: fn,
    });
    expect(streamDeltas(deltas)).toEqual([
      { content: 'Checking.' },
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      { toolCalls: [call(0, { name: 'read_file' }, ID)] },
      null,
      null,
      null,
      { toolCalls: [call(0, { arguments: '{"' })] },
      { toolCalls: [call(0, { arguments: 'path' })] },
      { toolCalls: [call(0, { arguments: '":' })] },
      { toolCalls: [call(0, { arguments: ' "' })] },
      { toolCalls: [call(0, { arguments: 'a' })] },
      { toolCalls: [call(0, { arguments: '"}' })] },
      null,
      null,
      null,
      null,
      null,
      { toolCalls: [call(1, { name: 'ls' }, ID)] },
      null,
      null,
      { toolCalls: [call(1, { arguments: '{}' })] },
      null,
      { content: ' Done' },
    ]);
  });

  it('splits a delta holding the marker: the text before it is content', () => {
    expect(streamDeltas(['Sure', '.[TOOL_CALLS] [{"name": "ls", "arguments": {"a": {"b": 1}}}]'])).toEqual([
      { content: 'Sure' },
      {
        content: '.',
        toolCalls: [{ index: 0, type: 'function', id: ID, function: { name: 'ls', arguments: '{"a": {"b": 1}}' } }],
      },
    ]);
  });
});
