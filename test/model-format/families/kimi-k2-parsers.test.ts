import { describe, expect, it } from 'vitest';
import { parseOutput } from '../../../gateway/token-faithful/output-parsers.js';
import { detectFamily, familyByName } from '../../../model-format/families/model-families.js';
import { createKimiK2ToolCallStream, parseKimiK2ToolCalls } from '../../../model-format/families/kimi-k2/parse-kimi-k2-tool-calls.js';
import { createKimiK2ReasoningStream, splitKimiK2Reasoning } from '../../../model-format/families/kimi-k2/split-kimi-k2-reasoning.js';

// The expected outputs below were written by reading vLLM's parsers and tracing them by hand on each text (no vLLM was
// run here, and no Kimi K2 tokenizer or template could be had; the syntax is MoonshotAI/Kimi-K2's
// docs/tool_call_guidance.md): the tool parser KimiK2ToolParser (vllm/entrypoints/openai/tool_parsers/
// kimi_k2_tool_parser.py at 03d5dc96) and the reasoning parser KimiK2ReasoningParser
// (vllm/reasoning/kimi_k2_reasoning_parser.py at 01a70348). Streamed cases feed one token a delta (each marker is one
// token). Call ids are the model's own `functions.NAME:IDX`.
const [SB, SE, CB, CE, AB] = [
  '<|tool_calls_section_begin|>',
  '<|tool_calls_section_end|>',
  '<|tool_call_begin|>',
  '<|tool_call_end|>',
  '<|tool_call_argument_begin|>',
];

function streamDeltas(deltas: string[]): unknown[] {
  const stream = createKimiK2ToolCallStream();
  let text = '';
  return deltas.map((delta) => stream.push((text += delta)));
}

describe("Kimi K2 tool calls, whole (vLLM's kimi_k2 extract_tool_calls)", () => {
  it('reads parallel calls with their functions.NAME:IDX ids, arguments verbatim, content before the section', () => {
    const text = `I'll check.${SB}${CB}functions.get_weather:0${AB}{"city": "Beijing"}${CE}${CB}functions.get_time:1${AB}{}${CE}${SE}`;
    expect(parseKimiK2ToolCalls(text)).toEqual({
      content: "I'll check.",
      toolCalls: [
        { id: 'functions.get_weather:0', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Beijing"}' } },
        { id: 'functions.get_time:1', type: 'function', function: { name: 'get_time', arguments: '{}' } },
      ],
    });
  });

  it('trims spaces around the id and arguments, takes an id without functions., does not check the JSON', () => {
    const text = `${SB}${CB} functions.ls:0 ${AB} {"a": 1} ${CE}${CB}grep:1${AB}not json${CE}${SE}`;
    expect(parseKimiK2ToolCalls(text)).toEqual({
      content: null,
      toolCalls: [
        { id: 'functions.ls:0', type: 'function', function: { name: 'ls', arguments: '{"a": 1}' } },
        { id: 'grep:1', type: 'function', function: { name: 'grep', arguments: 'not json' } },
      ],
    });
  });

  it('is all content without the section marker', () => {
    expect(parseKimiK2ToolCalls('Hello.')).toEqual({ content: 'Hello.', toolCalls: [] });
  });
});

describe("Kimi K2 tool calls, streamed (vLLM's kimi_k2 extract_tool_calls_streaming)", () => {
  it('sends content, each name with its id once ID:IDX has come, then the arguments as written', () => {
    const deltas = ['Let me check.', SB, CB, 'functions', '.get', '_weather', ':', '0', AB, '{"', 'city', '":', ' "', 'Beijing', '"}', CE];
    deltas.push(CB, 'functions.ls:1', AB, '{}', CE, SE);
    const args = (index: number, text: string): unknown => ({ toolCalls: [{ index, function: { arguments: text } }] });
    expect(streamDeltas(deltas)).toEqual([
      { content: 'Let me check.' },
      null,
      null,
      null,
      null,
      null,
      null,
      { toolCalls: [{ index: 0, type: 'function', id: 'functions.get_weather:0', function: { name: 'get_weather' } }] },
      null,
      args(0, '{"'),
      args(0, 'city'),
      args(0, '":'),
      args(0, ' "'),
      args(0, 'Beijing'),
      args(0, '"}'),
      null,
      null,
      { toolCalls: [{ index: 1, type: 'function', id: 'functions.ls:1', function: { name: 'ls' } }] },
      null,
      args(1, '{}'),
      null,
      null,
    ]);
  });

  it('keeps vLLM\'s quirk: a delta closing the call sends only what it holds up to its last "}', () => {
    expect(streamDeltas([SB, CB, 'functions.f:0', AB, '{"a": "b', `"}${CE}`]).at(-1)).toEqual({
      toolCalls: [{ index: 0, function: { arguments: '"}' } }],
    });
    expect(streamDeltas([SB, CB, 'functions.f:0', AB, '{"a": 1', `}${CE}`]).at(-1)).toBeNull();
  });
});

describe("Kimi K2 reasoning (vLLM's kimi_k2 reasoning parser)", () => {
  it('splits at </think>, else before the tool-call section, else all is reasoning; thinking off all is content', () => {
    expect(splitKimiK2Reasoning('<think>hm</think>Yes')).toEqual({ reasoning: 'hm', content: 'Yes' });
    expect(splitKimiK2Reasoning('hm</think>Yes')).toEqual({ reasoning: 'hm', content: 'Yes' });
    expect(splitKimiK2Reasoning(' <think>x</think>y')).toEqual({ reasoning: ' <think>x', content: 'y' });
    expect(splitKimiK2Reasoning(`plan${SB}${CB}`)).toEqual({ reasoning: 'plan', content: `${SB}${CB}` });
    expect(splitKimiK2Reasoning('still thinking')).toEqual({ reasoning: 'still thinking', content: null });
    expect(splitKimiK2Reasoning('<think>x', { chatTemplateKwargs: { thinking: false } })).toEqual({ reasoning: null, content: '<think>x' });
  });

  it('streams: tags alone yield nothing, the section marker ends the reasoning, then all is content', () => {
    const feed = (deltas: string[], thinking?: boolean): unknown[] => {
      const stream = createKimiK2ReasoningStream(thinking === undefined ? undefined : { chatTemplateKwargs: { thinking } });
      return deltas.map((delta) => stream.push(delta));
    };
    expect(feed(['hm', '</think>', 'Yes'])).toEqual([{ reasoning: 'hm' }, null, { content: 'Yes' }]);
    expect(feed(['<think>', 'plan', SB, CB])).toEqual([null, { reasoning: 'plan' }, { content: SB }, { content: CB }]);
    expect(feed(['a</think>b'])).toEqual([{ reasoning: 'a', content: 'b' }]);
    expect(feed(['<think>x'], false)).toEqual([{ content: '<think>x' }]);
  });
});

describe('the kimi-k2 family', () => {
  it('is detected from model_type kimi_k2 and from the section marker in a template', () => {
    expect(detectFamily({ modelType: 'kimi_k2', template: '' })?.name).toBe('kimi-k2');
    expect(familyByName('kimi-k2')?.keepsSpecialTokens).toBe(true);
    expect(detectFamily({ modelType: null, template: `{{ '${SB}' }}` })?.name).toBe('kimi-k2');
  });

  it("reads a K2-Thinking reply through the gateway's output parsers, the call id kept", () => {
    const options = {
      family: familyByName('kimi-k2')!,
      reasoning: 'kimi-k2',
      toolCalls: 'kimi-k2',
      tools: [{ type: 'function', function: { name: 'ls' } }],
      parseToolCalls: true,
    };
    expect(parseOutput(`plan</think>Looking.${SB}${CB}functions.ls:0${AB}{"p": 1}${CE}${SE}`, options)).toEqual({
      reasoning: 'plan',
      content: 'Looking.',
      toolCalls: [{ id: 'functions.ls:0', type: 'function', function: { name: 'ls', arguments: '{"p": 1}' } }],
    });
  });
});
