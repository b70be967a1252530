import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput } from '../../../gateway/token-faithful/output-parsers.js';
import { detectFamily, familyByName } from '../../../model-format/families/model-families.js';
import { createGlm45ToolCallStream, parseGlm45ToolCalls } from '../../../model-format/families/glm45/parse-glm45-tool-calls.js';
import { createGlm45ReasoningStream, splitGlm45Reasoning } from '../../../model-format/families/glm45/split-glm45-reasoning.js';

// The expected outputs below were written by reading vLLM's parsers and tracing them by hand on each text (no vLLM was
// run here; GLM-4.6's template is checked in glm45-template.test.ts): the tool parser Glm4MoeModelToolParser
// (vllm/tool_parsers/glm4_moe_tool_parser.py at 081866a6, the re-parse-and-diff streaming version) and the reasoning
// parser Glm4MoeModelReasoningParser (vllm/reasoning/glm4_moe_reasoning_parser.py at 0417bb43). Streamed cases feed
// one token a delta, as vLLM's engine does (the tags are single tokens). Ids are fresh, compared by shape.
const ID = expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/);
const TOOLS = [
  {
    type: 'function',
    function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } } },
  },
  {
    type: 'function',
    function: { name: 'write_file', parameters: { type: 'object', properties: { path: { type: 'string' }, mode: { type: 'integer' } } } },
  },
];

function streamDeltas(deltas: string[], tools: readonly unknown[] = TOOLS): unknown[] {
  const stream = createGlm45ToolCallStream(tools);
  let text = '';
  return deltas.map((delta) => stream.push((text += delta)));
}

describe("GLM-4.5 tool calls, whole (vLLM's glm45 extract_tool_calls)", () => {
  it('reads parallel calls: string parameters verbatim, others as JSON or Python literals, content before the first', () => {
    const text =
      'Let me look.\n<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>10</arg_value>\n</tool_call>\n' +
      '<tool_call>ls\n<arg_key>recursive</arg_key>\n<arg_value>True</arg_value>\n<arg_key>filter</arg_key>\n<arg_value>{"ext": [".ts", ".md"]}</arg_value>\n</tool_call>';
    expect(parseGlm45ToolCalls(text, TOOLS)).toEqual({
      content: 'Let me look.\n',
      toolCalls: [
        { id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "a.txt", "limit": 10}' } },
        { id: ID, type: 'function', function: { name: 'ls', arguments: '{"recursive": true, "filter": {"ext": [".ts", ".md"]}}' } },
      ],
    });
  });

  it('keeps a string value with its spaces, strips and keeps as text what does not parse, blank content is null', () => {
    const text =
      '\n\n<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value> a b </arg_value>\n<arg_key>note</arg_key>\n<arg_value> x y </arg_value>\n</tool_call>';
    expect(parseGlm45ToolCalls(text, TOOLS)).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": " a b ", "note": "x y"}' } }],
    });
  });

  it('is all content without a call, or when the only call has no line break after its name', () => {
    expect(parseGlm45ToolCalls('Hello.', TOOLS)).toEqual({ content: 'Hello.', toolCalls: [] });
    expect(parseGlm45ToolCalls('Hi <tool_call>ls</tool_call>', TOOLS)).toEqual({ content: 'Hi <tool_call>ls</tool_call>', toolCalls: [] });
  });
});

describe("GLM-4.5 tool calls, streamed (vLLM's glm45 extract_tool_calls_streaming)", () => {
  it('sends content, the name once its line ends, then the arguments built as JSON, the } once </tool_call> came', () => {
    const deltas = [
      'Sure',
      '.',
      '\n',
      '<tool_call>',
      'write',
      '_file',
      '\n',
      '<arg_key>',
      'path',
      '</arg_key>',
      '\n',
      '<arg_value>',
      'a',
      '.txt',
      '</arg_value>',
      '\n',
    ];
    deltas.push('<arg_key>', 'mode', '</arg_key>', '\n', '<arg_value>', '6', '</arg_value>', '\n', '</tool_call>');
    const args = (text: string): unknown => ({ toolCalls: [{ index: 0, function: { arguments: text } }] });
    expect(streamDeltas(deltas)).toEqual([
      { content: 'Sure' },
      { content: '.' },
      { content: '\n' },
      null,
      null,
      null,
      { toolCalls: [{ id: ID, type: 'function', index: 0, function: { name: 'write_file', arguments: '' } }] },
      null,
      null,
      null,
      null,
      args('{"path": "'),
      args('a'),
      args('.txt'),
      args('"'),
      null,
      null,
      null,
      null,
      null,
      args(', "mode": '),
      args('6'),
      null,
      null,
      args('}'),
    ]);
  });

  it('holds back a partial <tool_call>, sends {} for a call without arguments and content after a call', () => {
    expect(streamDeltas(['Hi <', 'tool_call>', 'ls\n', '</tool_call>', ' done'])).toEqual([
      { content: 'Hi ' },
      null,
      { toolCalls: [{ id: ID, type: 'function', index: 0, function: { name: 'ls', arguments: '' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '{}' } }] },
      { content: ' done' },
    ]);
  });

  it('passes every delta on as content when the request has no tools', () => {
    expect(streamDeltas(['<tool_call>ls\n', '</tool_call>'], [])).toEqual([{ content: '<tool_call>ls\n' }, { content: '</tool_call>' }]);
  });
});

describe("GLM-4.5 reasoning (vLLM's glm45 reasoning parser)", () => {
  it('splits whole text only when it holds both tags, else all is content', () => {
    expect(splitGlm45Reasoning('<think>weigh it</think>Yes.')).toEqual({ reasoning: 'weigh it', content: 'Yes.' });
    expect(splitGlm45Reasoning('\n<think>a</think>')).toEqual({ reasoning: 'a', content: null });
    expect(splitGlm45Reasoning('Yes.')).toEqual({ reasoning: null, content: 'Yes.' });
    expect(splitGlm45Reasoning('<think>cut off')).toEqual({ reasoning: null, content: '<think>cut off' });
  });

  it('streams: tags alone yield nothing, a delta opening <think> without closing it is reasoning whole (tag included)', () => {
    const feed = (deltas: string[]): unknown[] => {
      const stream = createGlm45ReasoningStream();
      return deltas.map((delta) => stream.push(delta));
    };
    expect(feed(['<think>', 'hm', '</think>', 'Yes'])).toEqual([null, { reasoning: 'hm' }, null, { content: 'Yes' }]);
    expect(feed(['<think>a</think>b'])).toEqual([{ reasoning: 'a', content: 'b' }]);
    expect(feed(['<think>a', 'b</think>c'])).toEqual([{ reasoning: '<think>a' }, { reasoning: 'b', content: 'c' }]);
    expect(feed(['no think'])).toEqual([{ content: 'no think' }]);
  });
});

describe('the glm45 family', () => {
  it("is detected from model_type glm4_moe and from vLLM's GLM fallback template, not from ChatML templates", () => {
    expect(detectFamily({ modelType: 'glm4_moe', template: '' })?.name).toBe('glm45');
    const fallback = readFileSync(new URL('../../fixtures/chat-templates/glm-4-vllm-fallback.jinja', import.meta.url), 'utf8');
    expect(detectFamily({ modelType: null, template: fallback })?.name).toBe('glm45');
    expect(familyByName('glm45')?.detect({ modelType: null, template: '<|im_start|><tool_call><arg_key>' })).toBe(false);
  });

  it("reads a reply through the gateway's output parsers, whole and streamed", () => {
    const family = familyByName('glm45')!;
    const options = { family, reasoning: 'glm45', toolCalls: 'glm45', tools: TOOLS, parseToolCalls: true };
    const text = '<think>plan</think>Reading.<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\n</tool_call>';
    expect(parseOutput(text, options)).toEqual({
      reasoning: 'plan',
      content: 'Reading.',
      toolCalls: [{ id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "a"}' } }],
    });
    const stream = createOutputStreamParser(options);
    const deltas = ['<think>', 'plan', '</think>', 'Reading.', '<tool_call>', 'read_file', '\n', '<arg_key>', 'path', '</arg_key>', '\n'];
    deltas.push('<arg_value>', 'a', '</arg_value>', '\n', '</tool_call>');
    const sent = deltas.map((delta) => stream.push(delta)).filter((delta) => delta !== null);
    expect(sent).toEqual([
      { reasoning: 'plan' },
      { content: 'Reading.' },
      { tool_calls: [{ id: ID, type: 'function', index: 0, function: { name: 'read_file', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"path": "' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'a' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '}' } }] },
    ]);
  });
});
