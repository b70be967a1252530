import { describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputParserOptions } from '../../../gateway/token-faithful/output-parsers.js';
import { detectFamily, familyByName } from '../../../model-format/families/model-families.js';

// The expected outputs were traced by hand from vLLM's source, no vLLM was run: the whole answer from
// vllm/entrypoints/openai/parser/harmony_utils.py `parse_chat_output` (reasoning: analysis joined with "\n") and
// vllm/tool_parsers/openai_tool_parser.py `extract_tool_calls` (calls from `to=functions.*`, arguments
// json.dumps(json.loads(text)), content the final text or else the commentary preamble); the stream from
// `extract_harmony_streaming_delta` (analysis -> reasoning, final/preamble -> content, a call's header once, then its
// argument text as written). Texts are as vLLM's /v1/completions returns them with skip_special_tokens false: after
// the prompt's <|start|>assistant, without the stop token.
const family = familyByName('gpt-oss')!;
const OPTIONS: OutputParserOptions = { family, reasoning: 'openai_gptoss', toolCalls: 'openai', tools: [{ type: 'function' }], parseToolCalls: true };
const ID = expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/);
const CALL =
  '<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary<|message|>Checking.<|end|>' +
  '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Zürich","days":2}';

describe('gpt-oss (Harmony), whole', () => {
  it('reads reasoning and the final answer', () => {
    expect(parseOutput('<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4.', OPTIONS)).toEqual({
      reasoning: 'Easy.',
      content: '4.',
      toolCalls: [],
    });
  });

  it('reads a call to functions.NAME, arguments as json.dumps writes them (ASCII escapes), the preamble as content', () => {
    expect(parseOutput(CALL, OPTIONS)).toEqual({
      reasoning: 'Need the weather.',
      content: 'Checking.',
      toolCalls: [{ id: ID, type: 'function', function: { name: 'get_weather', arguments: '{"city": "Z\\u00fcrich", "days": 2}' } }],
    });
    // the recipient before the channel, no content type, arguments that are no JSON: the text as written
    expect(parseOutput('<|start|>assistant to=functions.ls<|channel|>commentary<|message|>{oops', OPTIONS).toolCalls).toEqual([
      { id: ID, type: 'function', function: { name: 'ls', arguments: '{oops' } },
    ]);
  });
});

describe('gpt-oss (Harmony), streamed token by token', () => {
  it('gives reasoning, content, then the call: name once, arguments as written', () => {
    const parser = createOutputStreamParser(OPTIONS);
    // vLLM's deltas are one token each; special tokens are whole tokens
    const pieces = CALL.split(/(<\|[a-z]+\|>|[^<]{1,4})/).filter((piece) => piece !== '');
    const deltas = pieces.map((piece) => parser.push(piece)).filter((delta) => delta !== null);
    const reasoning = deltas.map((delta) => delta.reasoning ?? '').join('');
    const content = deltas.map((delta) => delta.content ?? '').join('');
    const calls = deltas.flatMap((delta) => delta.tool_calls ?? []);
    expect({ reasoning, content }).toEqual({ reasoning: 'Need the weather.', content: 'Checking.' });
    expect(calls[0]).toEqual({ id: ID, type: 'function', index: 0, function: { name: 'get_weather', arguments: '' } });
    expect(
      calls
        .slice(1)
        .map((call) => call.function.arguments)
        .join(''),
    ).toBe('{"city":"Zürich","days":2}');
    expect(parser.toolCallsSeen).toBe(true);
  });
});

describe('gpt-oss detection', () => {
  it("is picked by config.json's model_type gpt_oss or a Harmony template, and claims no other folder", () => {
    expect(detectFamily({ modelType: 'gpt_oss', template: '' })?.name).toBe('gpt-oss');
    expect(detectFamily({ modelType: null, template: '{{ "<|start|>assistant<|channel|>final<|message|>" }}' })?.name).toBe('gpt-oss');
    expect(detectFamily({ modelType: 'qwen3', template: '' })?.name).toBe('qwen3');
  });
});
