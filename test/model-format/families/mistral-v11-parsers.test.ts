import { describe, expect, it } from 'vitest';
import { familyByName, readModelFolderFacts, resolveModelFamily } from '../../../model-format/families/model-families.js';
import { isMistralV11Folder } from '../../../model-format/families/mistral/index.js';
import { createMistralV11ToolCallStream, parseMistralV11ToolCalls } from '../../../model-format/families/mistral/parse-mistral-v11-tool-calls.js';
import { mistralModelFolder } from '../../token-faithful/mistral-model-folder.js';

// The expected outputs below were written by reading vLLM's MistralToolParser (vllm/tool_parsers/mistral_tool_parser.py
// at 023f36c6, the paths for a tokenizer of v11 or later: the `>= v11` branch of extract_tool_calls, and
// _extract_tool_calls_streaming with _generate_delta_tool_call) and tracing it by hand on each text; no vLLM was run
// here. A Hugging Face tokenizer takes those paths when `[ARGS]` is in its vocabulary (_is_pre_v11_tokeniser), and its
// text, decoded with special tokens, keeps `[ARGS]`. Streamed cases feed one token a delta, as vLLM's engine does. Ids
// are fresh, compared by shape (nine ASCII letters and digits).
const ID = expect.stringMatching(/^[A-Za-z0-9]{9}$/);

/** Feeds the deltas one by one, as the gateway does: the stream gets the whole text so far. */
function streamDeltas(deltas: string[]): unknown[] {
  const stream = createMistralV11ToolCallStream();
  let text = '';
  return deltas.map((delta) => stream.push((text += delta)));
}

const call = (index: number, fn: { name?: string; arguments?: string }, id?: unknown): unknown => ({
  index,
  type: 'function',
  ...(id === undefined ? {} : { id }),
  function: fn,
});

describe('the mistral family for tokenizers v11 and later', () => {
  it('has the mistral-v11 parser beside mistral, and tells a v11 folder by [ARGS] in its tokens or its template', () => {
    expect(Object.keys(familyByName('mistral')!.toolCalls)).toEqual(['mistral', 'mistral-v11']);
    expect(isMistralV11Folder({ template: '', addedTokens: ['<s>', '[TOOL_CALLS]', '[ARGS]'] })).toBe(true);
    expect(isMistralV11Folder({ template: "{{- '[TOOL_CALLS]' + name + '[ARGS]' + arguments }}" })).toBe(true);
    expect(isMistralV11Folder({ template: '[TOOL_CALLS] [', addedTokens: ['<s>', '[TOOL_CALLS]'] })).toBe(false);
  });

  it('reads a folder whose tokenizer has [ARGS] with mistral-v11 by default (vLLM: a v11+ tokenizer), others with mistral', () => {
    const v11 = mistralModelFolder({ v11: true });
    const before = mistralModelFolder();
    try {
      expect(readModelFolderFacts(v11.dir).addedTokens).toContain('[ARGS]');
      expect(resolveModelFamily({ modelDir: v11.dir })).toMatchObject({ family: { name: 'mistral' }, toolCallParser: 'mistral-v11' });
      expect(resolveModelFamily({ modelFamily: 'mistral', modelDir: v11.dir }).toolCallParser).toBe('mistral-v11');
      expect(resolveModelFamily({ modelDir: before.dir }).toolCallParser).toBe('mistral');
      // the flag still names either (vLLM's one `mistral` parser cannot be told; here the folder only sets the default)
      expect(resolveModelFamily({ modelDir: v11.dir, toolCallParser: 'mistral' }).toolCallParser).toBe('mistral');
      expect(resolveModelFamily({ modelFamily: 'mistral' }).toolCallParser).toBe('mistral');
    } finally {
      v11.remove();
      before.remove();
    }
  });
});

describe("Mistral v11+ tool calls, whole (vLLM's extract_tool_calls, >= v11)", () => {
  it('reads one call per [TOOL_CALLS], name before the first {, [ARGS] taken out, arguments verbatim', () => {
    const text = 'Checking.[TOOL_CALLS]read_file[ARGS]{"path":"a", "n": [1,2]}[TOOL_CALLS]ls[ARGS]{}';
    expect(parseMistralV11ToolCalls(text)).toEqual({
      content: 'Checking.',
      toolCalls: [
        { id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path":"a", "n": [1,2]}' } },
        { id: ID, type: 'function', function: { name: 'ls', arguments: '{}' } },
      ],
    });
  });

  it('takes a call without [ARGS] (NAME{…}); keeps malformed arguments a call; the name is not trimmed', () => {
    expect(parseMistralV11ToolCalls('[TOOL_CALLS]ls{"a": 1}')).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{"a": 1}' } }],
    });
    expect(parseMistralV11ToolCalls('[TOOL_CALLS] ls[ARGS]{"a": ')).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: ' ls', arguments: '{"a": ' } }],
    });
  });

  it('keeps text without the marker as content, and drops a piece with no { after its marker', () => {
    expect(parseMistralV11ToolCalls('Hello [ARGS].')).toEqual({ content: 'Hello [ARGS].', toolCalls: [] });
    expect(parseMistralV11ToolCalls('Hi.[TOOL_CALLS]oops[TOOL_CALLS]ls[ARGS]{}')).toEqual({
      content: 'Hi.',
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{}' } }],
    });
  });
});

describe("Mistral v11+ tool calls, streamed (vLLM's _extract_tool_calls_streaming)", () => {
  it('sends content, then each name with its id and the first arguments piece once { comes, then the arguments as written', () => {
    const deltas = [
      'Checking', '.', '[TOOL_CALLS]', 'read', '_file', '[ARGS]', '{"', 'path', '":', ' "', 'a', '"}', '[TOOL_CALLS]', 'ls',
      '[ARGS]', '{}',
    ]; // prettier-ignore
    expect(streamDeltas(deltas)).toEqual([
      { content: 'Checking' },
      { content: '.' },
      null,
      null,
      null,
      null,
      { toolCalls: [call(0, { name: 'read_file', arguments: '{"' }, ID)] },
      { toolCalls: [call(0, { arguments: 'path' })] },
      { toolCalls: [call(0, { arguments: '":' })] },
      { toolCalls: [call(0, { arguments: ' "' })] },
      { toolCalls: [call(0, { arguments: 'a' })] },
      { toolCalls: [call(0, { arguments: '"}' })] },
      null,
      null,
      null,
      { toolCalls: [call(1, { name: 'ls', arguments: '{}' }, ID)] },
    ]);
  });

  it('splits a delta holding the first marker: the text before it is content, the rest a call', () => {
    expect(streamDeltas(['Sure', '.[TOOL_CALLS]ls[ARGS]{"a": 1}'])).toEqual([
      { content: 'Sure' },
      { content: '.', toolCalls: [call(0, { name: 'ls', arguments: '{"a": 1}' }, ID)] },
    ]);
  });

  it("loses a second marker in the delta that brought the first (vLLM joins the rest), and streams a later one's call", () => {
    expect(streamDeltas(['x[TOOL_CALLS]a[ARGS]{}[TOOL_CALLS]b[ARGS]{}'])).toEqual([
      { content: 'x', toolCalls: [call(0, { name: 'a', arguments: '{}b[ARGS]{}' }, ID)] },
    ]);
    expect(streamDeltas(['[TOOL_CALLS]a[ARGS]{}', '[TOOL_CALLS]b[ARGS]{}'])).toEqual([
      { toolCalls: [call(0, { name: 'a', arguments: '{}' }, ID)] },
      { toolCalls: [call(1, { name: 'b', arguments: '{}' }, ID)] },
    ]);
  });
});
