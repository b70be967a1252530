import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHermesToolCallStream, partialTagOverlap } from '../../model-format/families/qwen3/create-hermes-tool-call-stream.js';
import { createQwen3ChatStreamParser } from '../../model-format/families/qwen3/create-qwen3-chat-stream-parser.js';
import { createQwen3ReasoningStream } from '../../model-format/families/qwen3/create-qwen3-reasoning-stream.js';
import { parseHermesToolCalls } from '../../model-format/families/qwen3/parse-hermes-tool-calls.js';
import { parseQwen3ChatOutput } from '../../model-format/families/qwen3/parse-qwen3-chat-output.js';
import { pythonJsonDumps } from '../../model-format/chat-template/python-json-dumps.js';
import { splitQwen3Reasoning } from '../../model-format/families/qwen3/split-qwen3-reasoning.js';
import { renderReplyText } from '../../sim/render-reply-text.js';

describe('pythonJsonDumps', () => {
  it('writes Python json.dumps spacing and keeps non-ASCII as is', () => {
    expect(pythonJsonDumps({ a: [1, 2.5, null], b: { c: 'é"\n' }, d: true })).toBe('{"a": [1, 2.5, null], "b": {"c": "é\\"\\n"}, "d": true}');
    expect(pythonJsonDumps([])).toBe('[]');
  });
});

describe('splitQwen3Reasoning', () => {
  it('splits at the think tags and keeps the text verbatim', () => {
    expect(splitQwen3Reasoning('<think>\nsum\n</think>\n\n3')).toEqual({ reasoning: '\nsum\n', content: '\n\n3' });
    expect(splitQwen3Reasoning('<think>\ncut off')).toEqual({ reasoning: '\ncut off', content: null });
    expect(splitQwen3Reasoning('<think>x</think>')).toEqual({ reasoning: 'x', content: null });
    expect(splitQwen3Reasoning('plain answer')).toEqual({ reasoning: null, content: 'plain answer' });
  });
});

describe('parseHermesToolCalls', () => {
  it('extracts every call with vLLM ids and Python-dumped arguments, content before the first call', () => {
    const parsed = parseHermesToolCalls(
      'Let me look.\n<tool_call>\n{"name": "ls", "arguments": {"path":"/tmp","all":true}}\n</tool_call>\n<tool_call>\n{"name": "pwd", "arguments": {}}\n</tool_call>',
    );
    expect(parsed.toolsCalled).toBe(true);
    expect(parsed.content).toBe('Let me look.\n');
    expect(parsed.toolCalls.map((call) => call.function)).toEqual([
      { name: 'ls', arguments: '{"path": "/tmp", "all": true}' },
      { name: 'pwd', arguments: '{}' },
    ]);
    expect(parsed.toolCalls[0]?.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
    expect(parsed.toolCalls[0]?.id).not.toBe(parsed.toolCalls[1]?.id);
  });

  it('accepts an unclosed last call and gives up on broken JSON (all text is content)', () => {
    expect(parseHermesToolCalls('<tool_call>\n{"name": "a", "arguments": {"x": 1}}').toolCalls).toHaveLength(1);
    const broken = parseHermesToolCalls('<tool_call>\n{"name": "a", "arguments": {"x": ');
    expect(broken).toEqual({ toolsCalled: false, toolCalls: [], content: '<tool_call>\n{"name": "a", "arguments": {"x": ' });
  });
});

describe('streaming parsers', () => {
  it('partialTagOverlap finds a suffix that may grow into the tag', () => {
    expect(partialTagOverlap('text <tool', '<tool_call>')).toBe(5);
    expect(partialTagOverlap('text', '<tool_call>')).toBe(0);
  });

  it('Hermes stream: name first with an id, then argument pieces that join to the raw arguments', () => {
    const text = 'Sure.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2]}}\n</tool_call>';
    const stream = createHermesToolCallStream();
    const deltas = [...text].map((_, index) => stream.push(text.slice(0, index + 1))).filter((delta) => delta !== null);
    const content = deltas.map((delta) => delta.content ?? '').join('');
    const calls = deltas.flatMap((delta) => delta.toolCalls ?? []);
    expect(content).toBe('Sure.\n');
    expect(calls[0]).toMatchObject({ type: 'function', index: 0, function: { name: 'get_weather' } });
    expect(calls[0]?.id).toMatch(/^chatcmpl-tool-/);
    expect(
      calls
        .slice(1)
        .map((call) => call.function.arguments)
        .join(''),
    ).toBe('{"city": "Paris", "days": [1, 2]}');
  });

  it('Qwen3 reasoning stream: tags yield nothing, text before </think> is reasoning', () => {
    const stream = createQwen3ReasoningStream();
    expect(['<think>', '\n', 'hm', '</think>', '\n\n', 'Hi'].map((delta) => stream.push(delta))).toEqual([
      null,
      { reasoning: '\n' },
      { reasoning: 'hm' },
      null,
      { content: '\n\n' },
      { content: 'Hi' },
    ]);
    expect(stream.ended).toBe(true);
  });

  const replyArbitrary = fc.record({
    reasoning: fc.option(
      fc.string({ maxLength: 40 }).filter((text) => !text.includes('<')),
      { nil: undefined },
    ),
    content: fc.option(
      fc.string({ maxLength: 40 }).filter((text) => !text.includes('<')),
      { nil: undefined },
    ),
    toolCalls: fc.option(
      fc.array(
        fc.record({
          name: fc.stringMatching(/^[a-z_]{1,12}$/),
          arguments: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean())),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      { nil: undefined },
    ),
  });

  // <think> and </think> are single tokens in Qwen3's vocabulary, so a delta never splits them; anything else may
  // be split anywhere (the Hermes stream re-reads the whole text and holds back a partial <tool_call>)
  function atoms(text: string): string[] {
    return text.split(/(<think>|<\/think>)/).flatMap((part) => (part === '<think>' || part === '</think>' ? [part] : [...part]));
  }

  it('streamed parsing adds up to the non-streamed parse, however the text is split between think tags', () => {
    fc.assert(
      fc.property(replyArbitrary, fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 50 }), (reply, sizes) => {
        const text = renderReplyText(reply, { thinking: true });
        const whole = parseQwen3ChatOutput(text, { parseToolCalls: true });
        const parser = createQwen3ChatStreamParser({ parseToolCalls: true });
        const pieces = atoms(text);
        let reasoning = '';
        let content = '';
        const calls: Array<{ name: string; arguments: string }> = [];
        for (let start = 0, step = 0; start < pieces.length; step++) {
          const size = sizes[step % sizes.length] ?? 1;
          const delta = parser.push(pieces.slice(start, start + size).join(''));
          start += size;
          reasoning += delta?.reasoning ?? '';
          content += delta?.content ?? '';
          for (const call of delta?.toolCalls ?? []) {
            if (call.function.name !== undefined) calls[call.index] = { name: call.function.name, arguments: '' };
            const target = calls[call.index];
            if (target !== undefined) target.arguments += call.function.arguments ?? '';
          }
        }
        expect(reasoning).toBe(whole.reasoning ?? '');
        expect(content).toBe(whole.content ?? '');
        expect(calls).toEqual(whole.toolCalls.map((call) => call.function));
      }),
    );
  });
});
