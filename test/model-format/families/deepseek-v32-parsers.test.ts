import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputParserOptions } from '../../../gateway/token-faithful/output-parsers.js';
import { coerceToSchemaType, extractTypesFromSchema } from '../../../model-format/families/coerce-to-schema-type.js';
import { createDeepSeekV32ToolCallStream } from '../../../model-format/families/deepseek-v3/create-deepseek-v32-tool-call-stream.js';
import { parseDeepSeekV32ToolCalls } from '../../../model-format/families/deepseek-v3/parse-deepseek-v32-tool-calls.js';
import { detectFamily, familyByName, resolveModelFamily } from '../../../model-format/families/model-families.js';

// The expected outputs below were written by reading vLLM's DeepSeekV32ToolParser (vllm/tool_parsers/
// deepseekv32_tool_parser.py at 0372d7fd: extract_tool_calls, _convert_params_with_schema, _repair_param_dict and the
// streaming _process_streaming_buffer) with coerce_to_schema_type and extract_types_from_schema
// (vllm/tool_parsers/utils.py at 0064cc9c), and tracing them by hand on each text (no vLLM was run here). Streamed cases
// feed the deltas as the gateway does (the stream gets the content so far). Ids are fresh, compared by shape.
const ID = expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/);
const STREAM_ID = expect.stringMatching(/^call_[0-9a-f]{24}$/);
const D = '｜DSML｜';
const TOOLS = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  {
    type: 'function',
    function: { name: 'grep', parameters: { type: 'object', properties: { pattern: { type: 'string' }, max: { type: 'integer' } } } },
  },
  { type: 'function', function: { name: 'edit', parameters: { type: 'object', properties: { changes: { type: 'object' } } } } },
];

const invoke = (name: string, ...parameters: string[]): string =>
  `<${D}invoke name="${name}">\n${parameters.map((parameter) => `${parameter}\n`).join('')}</${D}invoke>`;
const parameter = (name: string, isString: boolean, value: string): string =>
  `<${D}parameter name="${name}" string="${isString}">${value}</${D}parameter>`;
const section = (...invokes: string[]): string => `<${D}function_calls>\n${invokes.join('\n')}\n</${D}function_calls>`;

// what V3.2's encoder writes for two parallel calls after a sentence (content, "\n\n", the section)
const TWO_CALLS = `Let me look.\n\n${section(
  invoke('read_file', parameter('path', true, 'src/a.ts')),
  invoke('grep', parameter('pattern', true, 'x"y'), parameter('max', false, '3')),
)}`;

function streamDeltas(deltas: string[], tools: readonly unknown[] = TOOLS): unknown[] {
  const stream = createDeepSeekV32ToolCallStream(tools);
  let text = '';
  return deltas.map((delta) => stream.push((text += delta)));
}

describe("DeepSeek V3.2 DSML tool calls, whole (vLLM's deepseek_v32 extract_tool_calls)", () => {
  it('reads parallel invokes, string values as text, typed values by the schema, the content before the section', () => {
    expect(parseDeepSeekV32ToolCalls(TWO_CALLS, TOOLS)).toEqual({
      content: 'Let me look.\n\n',
      toolCalls: [
        { id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "src/a.ts"}' } },
        { id: ID, type: 'function', function: { name: 'grep', arguments: '{"pattern": "x\\"y", "max": 3}' } },
      ],
    });
  });

  it('keeps a string="false" value as text when the schema does not type it (no tools, or an unknown parameter)', () => {
    const text = section(invoke('grep', parameter('max', false, '3'), parameter('other', false, '[1, 2]')));
    expect(parseDeepSeekV32ToolCalls(text, []).toolCalls[0]!.function.arguments).toBe('{"max": "3", "other": "[1, 2]"}');
    expect(parseDeepSeekV32ToolCalls(text, TOOLS).toolCalls[0]!.function.arguments).toBe('{"max": 3, "other": "[1, 2]"}');
  });

  it('is null content when the section starts the text, drops text after it, and a later value of a name wins', () => {
    const text = `${section(invoke('read_file', parameter('path', true, 'a'), parameter('path', true, 'line 1\nline 2')))} after`;
    expect(parseDeepSeekV32ToolCalls(text, TOOLS)).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "line 1\\nline 2"}' } }],
    });
  });

  it('leaves the whole text content without the section, or with one that holds no complete invoke', () => {
    expect(parseDeepSeekV32ToolCalls('Hello.', TOOLS)).toEqual({ content: 'Hello.', toolCalls: [] });
    const unclosed = `Hi ${section(`<${D}invoke name="ls">`)}`;
    expect(parseDeepSeekV32ToolCalls(unclosed, TOOLS)).toEqual({ content: unclosed, toolCalls: [] });
    const cut = `Hi <${D}function_calls>\n${invoke('ls')}`;
    expect(parseDeepSeekV32ToolCalls(cut, TOOLS)).toEqual({ content: cut, toolCalls: [] });
  });

  it('unwraps a lone arguments/input wrapper the schema does not name when its keys are all the schema names', () => {
    const wrapped = section(invoke('read_file', parameter('arguments', false, '{"path": "a"}')));
    expect(parseDeepSeekV32ToolCalls(wrapped, TOOLS).toolCalls[0]!.function.arguments).toBe('{"path": "a"}');
    // without tools no key is allowed, so the wrapper stays (its value as text)
    expect(parseDeepSeekV32ToolCalls(wrapped, []).toolCalls[0]!.function.arguments).toBe('{"arguments": "{\\"path\\": \\"a\\"}"}');
    const input = section(invoke('read_file', parameter('input', false, '{"path": "a", "extra": 1}')));
    expect(parseDeepSeekV32ToolCalls(input, TOOLS).toolCalls[0]!.function.arguments).toBe('{"input": "{\\"path\\": \\"a\\", \\"extra\\": 1}"}');
  });
});

describe("vLLM's coerce_to_schema_type and extract_types_from_schema", () => {
  it('tries null > integer > number > boolean > object/array > string, as Python reads each', () => {
    expect(coerceToSchemaType('null', ['integer', 'null'])).toBeNull();
    expect(coerceToSchemaType(' 12 ', ['integer'])).toBe(12);
    expect(coerceToSchemaType('1_000', ['int'])).toBe(1000);
    expect(coerceToSchemaType('1.5', ['integer', 'string'])).toBe('1.5');
    expect(coerceToSchemaType('2.50', ['number'])).toBe(2.5);
    expect(coerceToSchemaType('1e400', ['number'])).toBe('1e400');
    expect(coerceToSchemaType('0x10', ['number'])).toBe('0x10');
    expect(coerceToSchemaType('True', ['boolean'])).toBe(true);
    expect(coerceToSchemaType('0', ['bool'])).toBe(false);
    expect(coerceToSchemaType('{"a": [1, 2]}', ['object'])).toEqual({ a: [1, 2] });
    expect(coerceToSchemaType('[1,', ['array'])).toBe('[1,');
    // a type it does not know: one last json.loads
    expect(coerceToSchemaType('7', ['widget'])).toBe(7);
  });

  it('reads type lists, enum values and anyOf choices; string when nothing says', () => {
    // vLLM collects them in a set: their order means nothing
    const types = (schema: unknown): string[] => extractTypesFromSchema(schema).sort();
    expect(types({ type: ['integer', 'null'] })).toEqual(['integer', 'null']);
    expect(types({ enum: ['a', 1, true] })).toEqual(['boolean', 'integer', 'string']);
    expect(types({ anyOf: [{ type: 'number' }, { type: 'null' }] })).toEqual(['null', 'number']);
    expect(extractTypesFromSchema({})).toEqual(['string']);
    expect(extractTypesFromSchema(undefined)).toEqual(['string']);
  });
});

describe("DeepSeek V3.2 DSML tool calls, streamed (vLLM's deepseek_v32 _process_streaming_buffer)", () => {
  it('streams content, each call at its invoke, string values escaped as they come, typed scalars whole at their end', () => {
    const deltas = ['Let', ' me look.', '\n\n', `<${D}`, 'function', '_calls>\n', `<${D}invoke`, ' name="read', '_file">\n'];
    deltas.push(`<${D}parameter name="path"`, ' string="true">', 'src', '/a.ts', `</${D}`, 'parameter>\n', `</${D}invoke>\n`);
    deltas.push(`<${D}invoke name="grep">\n`, `<${D}parameter name="pattern" string="true">`, 'x"y', `</${D}parameter>\n`);
    deltas.push(`<${D}parameter name="max" string="false">`, '3', `</${D}parameter>\n`, `</${D}invoke>\n`, `</${D}function_calls>`);
    expect(streamDeltas(deltas)).toEqual([
      { content: 'Let' },
      { content: ' me look.' },
      { content: '\n\n' },
      null,
      null,
      null,
      null,
      null,
      { toolCalls: [{ index: 0, id: STREAM_ID, type: 'function', function: { name: 'read_file', arguments: '' } }] },
      null,
      { toolCalls: [{ index: 0, function: { arguments: '{"path":"' } }] },
      { toolCalls: [{ index: 0, function: { arguments: 'src' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '/a.ts' } }] },
      null,
      { toolCalls: [{ index: 0, function: { arguments: '"' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '}' } }] },
      { toolCalls: [{ index: 1, id: STREAM_ID, type: 'function', function: { name: 'grep', arguments: '' } }] },
      { toolCalls: [{ index: 1, function: { arguments: '{"pattern":"' } }] },
      { toolCalls: [{ index: 1, function: { arguments: 'x\\"y' } }] },
      { toolCalls: [{ index: 1, function: { arguments: '"' } }] },
      null,
      null,
      { toolCalls: [{ index: 1, function: { arguments: ',"max":3' } }] },
      { toolCalls: [{ index: 1, function: { arguments: '}' } }] },
      null,
    ]);
  });

  it('merges what one delta holds per call, streams object values verbatim, and reads text after the section as content', () => {
    const text = `${section(invoke('edit', parameter('changes', false, '{"a": [1, 2]}')), invoke('ls'))}Done.`;
    expect(streamDeltas([text])).toEqual([
      {
        content: 'Done.',
        toolCalls: [
          { index: 0, id: STREAM_ID, type: 'function', function: { name: 'edit', arguments: '{"changes":{"a": [1, 2]}}' } },
          { index: 1, id: STREAM_ID, type: 'function', function: { name: 'ls', arguments: '{}' } },
        ],
      },
    ]);
  });

  it('holds a first arguments wrapper whole and sends it unwrapped; untyped scalars go out as JSON strings', () => {
    const wrapped = section(invoke('read_file', parameter('arguments', false, '{"path": "a"}')));
    expect(streamDeltas([wrapped])).toEqual([
      { toolCalls: [{ index: 0, id: STREAM_ID, type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }] },
    ]);
    const untyped = section(invoke('grep', parameter('max', false, '3')));
    expect(streamDeltas([untyped], [])).toEqual([
      { toolCalls: [{ index: 0, id: STREAM_ID, type: 'function', function: { name: 'grep', arguments: '{"max":"3"}' } }] },
    ]);
  });
});

describe('the deepseek-v3 family with the deepseek-v32 parser', () => {
  const family = familyByName('deepseek-v3')!;
  const options: OutputParserOptions = {
    family,
    reasoning: 'deepseek-v3',
    toolCalls: 'deepseek-v32',
    tools: TOOLS,
    parseToolCalls: true,
    chatTemplateKwargs: { thinking: true },
  };

  it('reads reasoning, then DSML calls from the content, whole and streamed to the same calls', () => {
    const text = `plan</think>${TWO_CALLS}`;
    expect(parseOutput(text, options)).toMatchObject({ reasoning: 'plan', content: 'Let me look.\n\n' });
    const stream = createOutputStreamParser(options);
    const deltas = [...text.matchAll(/<[^>]*>|[^<]+/g)].map((match) => stream.push(match[0]));
    const streamedArguments = ['', ''];
    for (const delta of deltas) for (const call of delta?.tool_calls ?? []) streamedArguments[call.index] += call.function.arguments ?? '';
    const whole = parseOutput(text, options).toolCalls.map((call) => JSON.parse(call.function.arguments) as unknown);
    expect(streamedArguments.map((json) => JSON.parse(json) as unknown)).toEqual(whole);
    expect(whole).toEqual([{ path: 'src/a.ts' }, { pattern: 'x"y', max: 3 }]);
  });

  it('offers deepseek-v31 first, deepseek-v32 by --tool-call-parser', () => {
    expect(Object.keys(family.toolCalls)).toEqual(['deepseek-v31', 'deepseek-v32', 'deepseek-v3']);
    expect(resolveModelFamily({ modelFamily: 'deepseek-v3', toolCallParser: 'deepseek-v32' })).toMatchObject({
      reasoningParser: 'deepseek-v3',
      toolCallParser: 'deepseek-v32',
    });
  });
});

describe('a DeepSeek V3.2 model folder', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  function modelFolder(files: Record<string, string>): string {
    const folder = mkdtempSync(path.join(tmpdir(), 'tokentap-deepseek-v32-'));
    folders.push(folder);
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(folder, name), text);
    return folder;
  }
  const sglangV32 = readFileSync(fileURLToPath(new URL('../../fixtures/chat-templates/deepseek-v3.2-sglang.jinja', import.meta.url)), 'utf8');
  // a template written for DSML (none is published: DeepSeek ships V3.2's encoder in Python), as far as detection reads it
  const dsmlTemplate = `{{ bos_token }}{% for m in messages %}<｜User｜>{{ m.content }}<｜Assistant｜>{% endfor %}{{ '<${D}function_calls>' }}`;

  it('defaults to deepseek-v32 when it speaks DSML: model_type deepseek_v32 without a template, or a DSML template', () => {
    const bare = modelFolder({ 'config.json': '{"model_type": "deepseek_v32"}' });
    expect(resolveModelFamily({ modelDir: bare })).toMatchObject({ family: { name: 'deepseek-v3' }, toolCallParser: 'deepseek-v32' });
    const dsml = modelFolder({ 'chat_template.jinja': dsmlTemplate });
    expect(detectFamily({ modelType: null, template: dsmlTemplate })?.name).toBe('deepseek-v3');
    expect(resolveModelFamily({ modelDir: dsml }).toolCallParser).toBe('deepseek-v32');
    // named, the folder still decides the default
    expect(resolveModelFamily({ modelFamily: 'deepseek-v3', modelDir: dsml }).toolCallParser).toBe('deepseek-v32');
  });

  it("keeps deepseek-v31 for a V3.2 folder whose template writes V3.1's syntax (V3.2-Exp, SGLang's V3.2 template)", () => {
    const folder = modelFolder({ 'config.json': '{"model_type": "deepseek_v32"}', 'chat_template.jinja': sglangV32 });
    expect(resolveModelFamily({ modelDir: folder })).toMatchObject({ family: { name: 'deepseek-v3' }, toolCallParser: 'deepseek-v31' });
    expect(resolveModelFamily({ modelDir: folder, toolCallParser: 'deepseek-v32' }).toolCallParser).toBe('deepseek-v32');
    const v3 = modelFolder({ 'config.json': '{"model_type": "deepseek_v3"}' });
    expect(resolveModelFamily({ modelDir: v3 }).toolCallParser).toBe('deepseek-v31');
  });
});
