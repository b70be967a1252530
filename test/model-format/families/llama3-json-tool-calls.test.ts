import { describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputParserOptions } from '../../../gateway/token-faithful/output-parsers.js';
import { familyByName, resolveModelFamily } from '../../../model-format/families/model-families.js';
import { createLlama3JsonToolCallStream, parseLlama3JsonToolCalls } from '../../../model-format/families/llama3/parse-llama3-json-tool-calls.js';

// The expected outputs below were written by reading vLLM's parser (vllm/tool_parsers/llama_tool_parser.py,
// Llama3JsonToolParser at 13e48c2b, the same logic as vllm/frontend/processing/tool_parsers/llama_tool_parser.py at
// 055e47c2) and tracing it by hand on each text: no vLLM was run here. Tool-call ids are fresh per call, so they are
// compared by shape.
const ID = expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/);

function calls(text: string): Array<{ name: string; arguments: string }> | null {
  const parsed = parseLlama3JsonToolCalls(text);
  return parsed.toolCalls.length === 0 ? null : parsed.toolCalls.map((call) => call.function);
}

describe("Llama 3.x JSON tool calls, whole (vLLM's extract_tool_calls)", () => {
  it('reads a call with parameters or arguments, after <|python_tag|> or not, arguments written like json.dumps', () => {
    expect(parseLlama3JsonToolCalls('{"name": "ls", "parameters": {"path":"src","all":true}}')).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{"path": "src", "all": true}' } }],
    });
    expect(calls('<|python_tag|>{"name": "ls", "arguments": {"path": "é"}}')).toEqual([{ name: 'ls', arguments: '{"path": "é"}' }]);
  });

  it('reads several objects, and drops the text around them', () => {
    expect(parseLlama3JsonToolCalls('Sure. {"name": "a", "parameters": {}}; {"name": "b", "parameters": {"x": [1, 2]}} done')).toEqual({
      content: null,
      toolCalls: [
        { id: ID, type: 'function', function: { name: 'a', arguments: '{}' } },
        { id: ID, type: 'function', function: { name: 'b', arguments: '{"x": [1, 2]}' } },
      ],
    });
  });

  it('gives the whole text as content when any object lacks name or arguments, or a { starts no JSON', () => {
    for (const text of [
      'Hello there.',
      '{"name": "ls"}',
      '{"tool": "ls", "parameters": {}}',
      '{"name": "ls", "parameters": {}} and then {oops}',
      '{"name": "ls", "parameters": {',
      '{"name": 3, "parameters": {}}',
    ]) {
      expect(parseLlama3JsonToolCalls(text)).toEqual({ toolCalls: [], content: text });
    }
  });
});

describe("Llama 3.x JSON tool calls, streamed (vLLM's extract_tool_calls_streaming)", () => {
  it('sends the name once the object has it, then the arguments as far as two readings agree, the rest once complete', () => {
    const stream = createLlama3JsonToolCallStream();
    const pieces = ['{"', 'name', '":', ' "', 'ls', '",', ' "', 'parameters', '":', ' {"', 'path', '":', ' "', 'src', '"}}'];
    let text = '';
    const deltas = pieces.map((piece) => stream.push((text += piece)));
    expect(deltas).toEqual([
      null, // a first object: the cursor moves to call 0
      null,
      null,
      null,
      null, // an unterminated string is not read before the name is out
      { toolCalls: [{ index: 0, type: 'function', id: ID, function: { name: 'ls' } }] },
      null,
      null,
      null,
      null, // parameters {} is falsy
      null,
      null,
      null, // {"path": ""}: the reading before had no arguments
      { toolCalls: [{ index: 0, function: { arguments: '{"path": "' } }] }, // the common prefix of {"path": ""} and {"path": "src"}
      { toolCalls: [{ index: 0, function: { arguments: 'src"}' } }] }, // complete: all that is left
    ]);
  });

  it('moves to the next call after "; ", first sending what the previous one still lacked', () => {
    const stream = createLlama3JsonToolCallStream();
    const texts = [
      '{"name": "a", ',
      '{"name": "a", "parameters": {"n": 1',
      '{"name": "a", "parameters": {"n": 12',
      '{"name": "a", "parameters": {"n": 12}}; {"name": "b", ',
    ];
    expect(texts.map((text) => stream.push(text))).toEqual([
      null, // cursor to call 0
      { toolCalls: [{ index: 0, type: 'function', id: ID, function: { name: 'a' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '{"n": 1' } }] }, // {"n": 1} vs {"n": 12}
      { toolCalls: [{ index: 0, function: { arguments: '2}' } }] }, // a second object: call 0's rest, cursor to call 1
    ]);
  });

  it('streams a text that starts with neither <|python_tag|> nor { as content, delta by delta', () => {
    const stream = createLlama3JsonToolCallStream();
    expect(['It', 'It is {', 'It is {"name": "x"}'].map((text) => stream.push(text))).toEqual([
      { content: 'It' },
      { content: ' is {' },
      { content: '"name": "x"}' },
    ]);
  });
});

describe('the llama3 family in the output parsers', () => {
  const TOOLS = [{ type: 'function', function: { name: 'ls', parameters: { type: 'object' } } }];
  const llama3 = familyByName('llama3')!;
  const options: OutputParserOptions = { family: llama3, reasoning: 'none', toolCalls: 'llama3-json', tools: TOOLS, parseToolCalls: true };

  it('has no reasoning, llama3-json by default, and is detected from its template or model_type', () => {
    expect(resolveModelFamily({ modelFamily: 'llama3' })).toMatchObject({ reasoningParser: 'none', toolCallParser: 'llama3-json' });
    expect(llama3.detect({ modelType: null, template: '<|start_header_id|>system<|end_header_id|>' })).toBe(true);
    expect(llama3.detect({ modelType: 'llama', template: '' })).toBe(true);
    expect(familyByName('qwen3')!.detect({ modelType: null, template: '<|start_header_id|>' })).toBe(false);
  });

  it('whole and streamed parses add up to the same message', () => {
    const text = '{"name": "ls", "parameters": {"path": "src/a b.ts", "depth": 2}}';
    expect(parseOutput(text, options)).toEqual({
      reasoning: null,
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{"path": "src/a b.ts", "depth": 2}' } }],
    });
    const parser = createOutputStreamParser(options);
    const deltas = [...(text.match(/.{1,3}/gs) ?? []).map((piece) => parser.push(piece)), parser.finish()];
    const args = deltas.flatMap((delta) => delta?.tool_calls ?? []).map((call) => call.function.arguments ?? '');
    expect(args.join('')).toBe('{"path": "src/a b.ts", "depth": 2}');
    expect(deltas.some((delta) => delta?.content !== undefined)).toBe(false);
    expect(parser.toolCallsSeen).toBe(true);
  });
});
