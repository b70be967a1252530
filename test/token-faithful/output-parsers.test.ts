import { describe, expect, it } from 'vitest';
import { CompletionToChat, toChatLogprobs } from '../../gateway/token-faithful/completion-to-chat.js';
import { createOutputStreamParser, parseOutput, type OutputDelta, type OutputParserOptions } from '../../gateway/token-faithful/output-parsers.js';
import { parseQwen3CoderToolCalls } from '../../model-format/families/qwen3/parse-qwen3-coder-tool-calls.js';

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'edit',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          line: { type: 'integer' },
          force: { type: 'boolean' },
          ranges: { type: 'array' },
          note: { type: 'string' },
        },
      },
    },
  },
];
const HERMES: OutputParserOptions = { reasoning: 'qwen3', toolCalls: 'hermes', tools: TOOLS, parseToolCalls: true };
const CODER: OutputParserOptions = { ...HERMES, toolCalls: 'qwen3-coder' };
const CODER_TEXT =
  '<think>\nEdit it.\n</think>\n\nI will edit.\n<tool_call>\n<function=edit>\n<parameter=path>\nsrc/a.ts\n</parameter>\n<parameter=line>\n12\n</parameter>\n<parameter=force>\nTrue\n</parameter>\n<parameter=ranges>\n[[1, 2]]\n</parameter>\n<parameter=note>\nnull\n</parameter>\n</function>\n</tool_call>';

/** Streams text the way a completions stream does (one piece per token, here per tag or word) and gathers the deltas. */
function streamed(
  text: string,
  options: OutputParserOptions,
): { reasoning: string; content: string; calls: Array<{ name: string; arguments: string }> } {
  const parser = createOutputStreamParser(options);
  const pieces = text.split(/(<\/?think>|<\/?tool_call>|\s+)/).filter((piece) => piece !== '');
  const deltas = [...pieces.map((piece) => parser.push(piece)), parser.finish()].filter((delta): delta is OutputDelta => delta !== null);
  const calls: Array<{ name: string; arguments: string }> = [];
  for (const call of deltas.flatMap((delta) => delta.tool_calls ?? [])) {
    const target = (calls[call.index] ??= { name: '', arguments: '' });
    target.name += call.function.name ?? '';
    target.arguments += call.function.arguments ?? '';
  }
  return { reasoning: deltas.map((delta) => delta.reasoning ?? '').join(''), content: deltas.map((delta) => delta.content ?? '').join(''), calls };
}

describe('token-faithful output parsers', () => {
  it('read Qwen3-Coder XML tool calls, converting values by the tool schema', () => {
    const parsed = parseOutput(CODER_TEXT, CODER);
    expect(parsed.reasoning).toBe('\nEdit it.\n');
    expect(parsed.content).toBe('\n\nI will edit.\n');
    expect(parsed.toolCalls.map((call) => call.function)).toEqual([
      { name: 'edit', arguments: '{"path": "src/a.ts", "line": 12, "force": true, "ranges": [[1, 2]], "note": null}' },
    ]);
    expect(parseQwen3CoderToolCalls('no calls here', TOOLS)).toEqual({ toolCalls: [], content: 'no calls here' });
  });

  it('stream the same message as the whole-text parse, for Hermes and Qwen3-Coder', () => {
    const hermes = '<think>\nLook.\n</think>\n\n<tool_call>\n{"name": "edit", "arguments": {"path": "a b", "line": 3}}\n</tool_call>';
    for (const [text, options] of [
      [hermes, HERMES],
      [CODER_TEXT, CODER],
    ] as const) {
      const whole = parseOutput(text, options);
      const pieces = streamed(text, options);
      expect(pieces.reasoning).toBe(whole.reasoning);
      expect(pieces.content).toBe(whole.content);
      expect(pieces.calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) as unknown }))).toEqual(
        whole.toolCalls.map((call) => ({ name: call.function.name, arguments: JSON.parse(call.function.arguments) as unknown })),
      );
    }
  });

  it('let go of held-back text at the end when it never became a tool call', () => {
    expect(streamed('Compare a <tool', HERMES).content).toBe('Compare a <tool');
    expect(streamed('plain words', { ...HERMES, parseToolCalls: false }).content).toBe('plain words');
  });

  it('leave reasoning alone with the none parser, and tool calls unparsed when the request has no tools', () => {
    expect(parseOutput('<think>x</think>y', { ...HERMES, reasoning: 'none' })).toEqual({
      reasoning: null,
      content: '<think>x</think>y',
      toolCalls: [],
    });
    expect(parseOutput('<tool_call>\n{"name": "edit", "arguments": {}}\n</tool_call>', { ...HERMES, tools: [] }).toolCalls).toEqual([]);
  });
});

describe('completions payloads as chat payloads', () => {
  it('turns legacy logprobs into chat logprobs, likeliest alternative first', () => {
    expect(toChatLogprobs({ tokens: ['Hi', '!'], token_logprobs: [-0.5, -0.1], top_logprobs: [{ Hello: -0.4, Hi: -0.5 }, { '!': -0.1 }] })).toEqual({
      content: [
        {
          token: 'Hi',
          logprob: -0.5,
          bytes: [72, 105],
          top_logprobs: [
            { token: 'Hello', logprob: -0.4, bytes: [72, 101, 108, 108, 111] },
            { token: 'Hi', logprob: -0.5, bytes: [72, 105] },
          ],
        },
        { token: '!', logprob: -0.1, bytes: [33], top_logprobs: [{ token: '!', logprob: -0.1, bytes: [33] }] },
      ],
    });
    expect(toChatLogprobs(null)).toBeNull();
  });

  it('moves prompt ids to the top of the first chunk and reports tool_calls as the finish reason', () => {
    const translate = new CompletionToChat(HERMES);
    const first: Record<string, unknown> = {
      id: 'cmpl-1',
      object: 'text_completion',
      choices: [{ index: 0, text: '<tool_call>', prompt_token_ids: [1, 2], token_ids: [151657], finish_reason: null }],
    };
    translate.chunk(first);
    expect(first).toMatchObject({
      object: 'chat.completion.chunk',
      prompt_token_ids: [1, 2],
      choices: [{ index: 0, delta: { role: 'assistant' }, token_ids: [151657], finish_reason: null }],
    });
    const last: Record<string, unknown> = {
      id: 'cmpl-1',
      choices: [
        { index: 0, text: '\n{"name": "edit", "arguments": {}}\n</tool_call>', token_ids: [9, 151645], finish_reason: 'stop', stop_reason: null },
      ],
    };
    translate.chunk(last);
    expect(last).toMatchObject({
      choices: [
        {
          finish_reason: 'tool_calls',
          delta: {
            tool_calls: [
              { index: 0, function: { name: 'edit' } },
              { index: 0, function: { arguments: '{}' } },
            ],
          },
        },
      ],
    });
  });
});
