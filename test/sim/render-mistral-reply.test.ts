import { describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputDelta } from '../../gateway/token-faithful/output-parsers.js';
import { familyByName } from '../../model-format/families/model-families.js';
import { renderMistralReply } from '../../sim/render-mistral-reply.js';

// The simulator's Mistral writer in both syntaxes, read back by the gateway's parsers for the family (the simulator
// never imports them): what the sim meant to say is what the gateway reads, whole and streamed, for a reply with
// content, two parallel calls and string arguments given as JSON text.
const TOOLS = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }];
const REPLY = {
  content: 'Looking.',
  toolCalls: [
    { name: 'read_file', arguments: { path: 'a b.txt' } },
    { name: 'grep', arguments: '{"pattern": "x\\ny", "max": 3}' },
  ],
};
const MEANT = [
  { name: 'read_file', arguments: '{"path": "a b.txt"}' },
  { name: 'grep', arguments: '{"pattern": "x\\ny", "max": 3}' },
];

/** The text in deltas as tokens would bring it: each control token whole (a special token), the rest a character at a time. */
function tokenLikeDeltas(text: string): string[] {
  return text
    .split(/(\[TOOL_CALLS\]|\[ARGS\]|\[THINK\]|\[\/THINK\])/)
    .flatMap((piece) => (piece.startsWith('[') && piece.endsWith(']') && piece.length > 2 ? [piece] : [...piece]));
}

function readBack(text: string, parser: 'mistral' | 'mistral-v11', reasoning = 'none'): { whole: unknown; streamed: unknown } {
  const options = { family: familyByName('mistral')!, reasoning, toolCalls: parser, tools: TOOLS, parseToolCalls: true };
  const whole = parseOutput(text, options);
  const stream = createOutputStreamParser(options);
  const deltas = tokenLikeDeltas(text)
    .map((delta) => stream.push(delta))
    .filter((delta): delta is OutputDelta => delta !== null);
  let content = '';
  let thought = '';
  const calls: Array<{ name: string; arguments: string }> = [];
  for (const delta of deltas) {
    content += delta.content ?? '';
    thought += delta.reasoning ?? '';
    for (const call of delta.tool_calls ?? []) {
      calls[call.index] ??= { name: '', arguments: '' };
      calls[call.index]!.name += call.function.name ?? '';
      calls[call.index]!.arguments += call.function.arguments ?? '';
    }
  }
  if (reasoning === 'none') {
    return { whole: { content: whole.content, calls: whole.toolCalls.map((call) => call.function) }, streamed: { content, calls } };
  }
  return {
    whole: { reasoning: whole.reasoning, content: whole.content, calls: whole.toolCalls.map((call) => call.function) },
    streamed: { reasoning: thought, content, calls },
  };
}

describe('the Mistral writer', () => {
  it("writes the pre-v11 [TOOL_CALLS] [...] list that vLLM's mistral parser (the gateway's) reads back", () => {
    const layout = renderMistralReply(REPLY, { v11: false });
    expect(layout.text).toBe(
      'Looking.[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a b.txt"}}, {"name": "grep", "arguments": {"pattern": "x\\ny", "max": 3}}]',
    );
    const { whole, streamed } = readBack(layout.text, 'mistral');
    expect(whole).toEqual({ content: 'Looking.', calls: MEANT });
    expect(streamed).toEqual({ content: 'Looking.', calls: MEANT });
  });

  it('writes [TOOL_CALLS]NAME[ARGS]{…} per call for a v11+ tokenizer, read back by the mistral-v11 parser', () => {
    const layout = renderMistralReply(REPLY, { v11: true });
    expect(layout.text).toBe('Looking.[TOOL_CALLS]read_file[ARGS]{"path": "a b.txt"}[TOOL_CALLS]grep[ARGS]{"pattern": "x\\ny", "max": 3}');
    const { whole, streamed } = readBack(layout.text, 'mistral-v11');
    expect(whole).toEqual({ content: 'Looking.', calls: MEANT });
    expect(streamed).toEqual({ content: 'Looking.', calls: MEANT });
  });

  it('lays the content out up to the first [TOOL_CALLS], and names calls with nine letters and digits', () => {
    for (const v11 of [false, true]) {
      const layout = renderMistralReply(REPLY, { v11 });
      expect(layout.toolCalls[0]!.start).toBe('Looking.'.length);
      expect(layout.makeToolCallId?.()).toMatch(/^[A-Za-z0-9]{9}$/);
    }
  });

  it("writes [THINK]REASONING[/THINK] first for a v13+ tokenizer, read back by vLLM's mistral reasoning parser (the gateway's)", () => {
    const layout = renderMistralReply({ reasoning: 'Two files to read.', ...REPLY }, { v11: true, think: true });
    expect(layout.text).toBe(
      '[THINK]Two files to read.[/THINK]Looking.[TOOL_CALLS]read_file[ARGS]{"path": "a b.txt"}[TOOL_CALLS]grep[ARGS]{"pattern": "x\\ny", "max": 3}',
    );
    expect([layout.think, layout.contentStart]).toEqual([{ reasoningStart: 7, reasoningEnd: 25 }, 33]);
    expect(layout.toolCalls[0]!.start).toBe(33 + 'Looking.'.length);
    const { whole, streamed } = readBack(layout.text, 'mistral-v11', 'mistral');
    expect(whole).toEqual({ reasoning: 'Two files to read.', content: 'Looking.', calls: MEANT });
    expect(streamed).toEqual({ reasoning: 'Two files to read.', content: 'Looking.', calls: MEANT });
  });

  it('writes no reasoning for a tokenizer before v13, nor a think block for a reply without reasoning', () => {
    expect(renderMistralReply({ reasoning: 'r', content: 'Hi' }, { v11: true }).text).toBe('Hi');
    expect(renderMistralReply({ content: 'Hi' }, { v11: true, think: true })).toMatchObject({ text: 'Hi', think: null, contentStart: 0 });
  });
});
