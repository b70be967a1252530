import { describe, expect, it } from 'vitest';
import { parseSimScript } from '../../sim/index.js';
import { chatMessageFields } from '../../sim/chat-message-fields.js';
import { createChatStreamDeltas } from '../../sim/chat-stream-deltas.js';
import { renderReply } from '../../sim/render-reply-text.js';
import { postJson, startSim } from './sim-test-helpers.js';

const TWO_CALLS = {
  reasoning: 'r',
  content: 'c',
  toolCalls: [
    { name: 'ls', arguments: { path: '.', all: true } },
    { name: 'cat', arguments: { file: 'a' } },
  ],
};

describe('the simulator generates answers from a reply structure, with no output parser', () => {
  it('knows where each part of the rendered reply sits', () => {
    const layout = renderReply(TWO_CALLS, { thinking: true });
    const [first, second] = layout.toolCalls;
    expect(layout.text.slice(layout.think!.reasoningStart, layout.think!.reasoningEnd)).toBe('\nr\n');
    expect(layout.text.slice(layout.contentStart, first!.start)).toBe('\n\nc\n');
    expect(layout.text.slice(first!.start, first!.nameEnd)).toBe('<tool_call>\n{"name": "ls"');
    expect(layout.text.slice(first!.argumentsStart, first!.argumentsEnd)).toBe('{"path": ".", "all": true}');
    expect(layout.text.slice(first!.jsonEnd, second!.start)).toBe('\n</tool_call>\n');
    expect(layout.text.slice(second!.end)).toBe('');
  });

  it('reports the message fields vLLM reports, also for a reply cut short', () => {
    const layout = renderReply(TWO_CALLS, { thinking: true });
    const fields = (textEnd: number, parseToolCalls = true): unknown => {
      const result = chatMessageFields(layout, { textEnd, parseToolCalls });
      return { ...result, toolCalls: result.toolCalls.map((call) => call.function) };
    };
    const [first, second] = layout.toolCalls;
    expect(fields(layout.text.length)).toEqual({
      reasoning: '\nr\n',
      content: '\n\nc\n',
      toolCalls: [
        { name: 'ls', arguments: '{"path": ".", "all": true}' },
        { name: 'cat', arguments: '{"file": "a"}' },
      ],
    });
    // without the Hermes parser the calls are content text
    expect(fields(layout.text.length, false)).toEqual({ reasoning: '\nr\n', content: layout.text.slice(layout.contentStart), toolCalls: [] });
    // cut inside the think block: all reasoning
    expect(fields(9)).toEqual({ reasoning: '\nr', content: null, toolCalls: [] });
    // cut inside the second call's JSON: vLLM's parser fails, so the whole answer is content
    expect(fields(second!.jsonEnd - 1)).toEqual({
      reasoning: '\nr\n',
      content: layout.text.slice(layout.contentStart, second!.jsonEnd - 1),
      toolCalls: [],
    });
    // cut after the first call's JSON, before its closing tag: that call parses
    expect(fields(first!.jsonEnd)).toEqual({
      reasoning: '\nr\n',
      content: '\n\nc\n',
      toolCalls: [{ name: 'ls', arguments: '{"path": ".", "all": true}' }],
    });
    // a string argument comes back re-dumped, as vLLM's json.dumps does
    const compact = renderReply({ toolCalls: [{ name: 'a', arguments: '{"y":2}' }] }, { thinking: false });
    expect(chatMessageFields(compact, { textEnd: compact.text.length, parseToolCalls: true }).toolCalls[0]!.function.arguments).toBe('{"y": 2}');
  });

  it('cuts streamed deltas by part: tags send nothing, a straddling chunk sends each part, blanks in arguments wait', () => {
    const layout = renderReply(TWO_CALLS, { thinking: true });
    const deltas = createChatStreamDeltas(layout, { parseToolCalls: true });
    const [first, second] = layout.toolCalls;
    expect(deltas.push(0, 7)).toBeNull(); // <think>
    // one chunk over the end of reasoning, </think> and the start of the content
    expect(deltas.push(7, layout.contentStart + 3)).toEqual({ reasoning: '\nr\n', content: '\n\nc' });
    expect(deltas.push(layout.contentStart + 3, first!.start + 1)).toEqual({ content: '\n' });
    expect(deltas.push(first!.start + 1, first!.nameEnd - 1)).toBeNull();
    expect(deltas.push(first!.nameEnd - 1, first!.argumentsStart + 1)).toEqual({
      toolCalls: [
        { id: expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/), type: 'function', index: 0, function: { name: 'ls' } },
        { index: 0, function: { arguments: '{' } },
      ],
    });
    // '"path": ".", ' ends in a blank: vLLM strips the unfinished call, so the blank goes out with the next chunk
    const blank = first!.argumentsStart + '{"path": ".", '.length;
    expect(deltas.push(first!.argumentsStart + 1, blank)).toEqual({ toolCalls: [{ index: 0, function: { arguments: '"path": ".",' } }] });
    expect(deltas.push(blank, first!.end)).toEqual({ toolCalls: [{ index: 0, function: { arguments: ' "all": true}' } }] });
    // the "\n" between the calls and the second call's tag send nothing
    expect(deltas.push(first!.end, second!.start + 1)).toBeNull();
    expect(deltas.push(second!.start + 1, second!.end)?.toolCalls?.map((call) => call.function)).toEqual([
      { name: 'cat' },
      { arguments: '{"file": "a"}' },
    ]);
    expect(deltas.toolCallsStreamed).toBe(true);
  });

  it('holds back content that may begin <tool_call> only while the Hermes parser runs', () => {
    const layout = renderReply({ content: 'a <' }, { thinking: false });
    expect(createChatStreamDeltas(layout, { parseToolCalls: true }).push(0, 3)).toEqual({ content: 'a ' });
    expect(createChatStreamDeltas(layout, { parseToolCalls: false }).push(0, 3)).toEqual({ content: 'a <' });
  });

  it('refuses a chat reply whose raw text carries the tags vLLM parses, and answers it on completions', async () => {
    const text = '<think>\nhm\n</think>\n\n<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>';
    const { sim, url } = await startSim({ script: { replies: [{ times: 'forever', text }] } });
    try {
      const chat = await postJson(`${url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'Hi' }] });
      expect(chat.status).toBe(500);
      expect(((await chat.json()) as { error: { message: string } }).error.message).toMatch(
        /Script entry 0 writes <think> in `text`.*`reasoning`, `content` and `toolCalls`/,
      );
      const completion = (await (await postJson(`${url}/v1/completions`, { prompt: 'Go', max_tokens: 100 })).json()) as {
        choices: Array<{ text: string }>;
      };
      expect(completion.choices[0]!.text).toBe(text);
    } finally {
      await sim.close();
    }
  });

  it('writes a structured reply on completions as the model would: thinking first when the prompt opens a Qwen3 turn', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ times: 'forever', reasoning: 'hm', content: 'Hi.' }] } });
    try {
      const complete = async (prompt: string): Promise<string> =>
        ((await (await postJson(`${url}/v1/completions`, { prompt, max_tokens: 50 })).json()) as { choices: Array<{ text: string }> }).choices[0]!
          .text;
      expect(await complete('<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n')).toBe('<think>\nhm\n</think>\n\nHi.');
      expect(await complete('<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n')).toBe('Hi.');
      expect(await complete('Say hi:')).toBe('Hi.');
    } finally {
      await sim.close();
    }
  });

  it('takes string tool-call arguments only when they are a JSON object', () => {
    expect(() => parseSimScript({ replies: [{ toolCalls: [{ name: 'a', arguments: '{"x": 1' }] }] })).toThrow(/JSON object/);
    expect(() => parseSimScript({ replies: [{ toolCalls: [{ name: 'a', arguments: '[1]' }] }] })).toThrow(/JSON object/);
    expect(parseSimScript({ replies: [{ toolCalls: [{ name: 'a', arguments: ' {"x": 1} ' }] }] }).replies[0]!.toolCalls![0]!.arguments).toBe(
      ' {"x": 1} ',
    );
  });
});
