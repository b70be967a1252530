import { describe, expect, it } from 'vitest';
import { parseSimScript } from '../../sim/index.js';
import { renderReplyText } from '../../sim/render-reply-text.js';
import { postJson, startSim, WEATHER_TOOL } from './sim-test-helpers.js';

function ask(content: string, extra: Record<string, unknown> = {}) {
  return { messages: [{ role: 'user', content }], chat_template_kwargs: { enable_thinking: false }, ...extra };
}

async function contentOf(url: string, body: Record<string, unknown>): Promise<string | null> {
  const response = await postJson(`${url}/v1/chat/completions`, body);
  const json = (await response.json()) as Record<string, any>;
  return json.choices?.[0]?.message?.content ?? json.error?.message ?? null;
}

describe('scripts', () => {
  it('answers with the first matching entry that has uses left', async () => {
    const { sim, url } = await startSim({
      script: {
        replies: [
          { match: { lastUserContains: 'hello' }, times: 2, content: 'hello back' },
          { match: { hasTools: true }, content: 'tools offered' },
          { match: { model: 'other-name' }, content: 'other model' },
          { match: { stream: true }, content: 'streaming' },
          { match: { promptContains: 'secret' }, times: 'forever', content: 'found it' },
        ],
        otherwise: 'error',
      },
      acceptAnyModel: true,
    });
    try {
      expect(await contentOf(url, ask('hello there'))).toBe('hello back');
      expect(await contentOf(url, ask('hello again'))).toBe('hello back');
      expect(await contentOf(url, ask('hello, third time', { tools: [WEATHER_TOOL] }))).toBe('tools offered');
      expect(await contentOf(url, ask('hi', { model: 'other-name' }))).toBe('other model');
      expect(
        await contentOf(url, {
          messages: [
            { role: 'system', content: 'the secret is 4' },
            { role: 'user', content: 'x' },
          ],
        }),
      ).toBe('found it');
      expect(await contentOf(url, ask('the secret again'))).toBe('found it');
      const unmatched = await postJson(`${url}/v1/chat/completions`, ask('nothing matches'));
      expect(unmatched.status).toBe(500);
      expect(sim.log.map((record) => record.scriptEntry)).toEqual([0, 0, 1, 2, 4, 4, null]);
      expect(sim.log.at(-1)).toMatchObject({ status: 500, error: expect.stringContaining('No script entry matches') });
    } finally {
      await sim.close();
    }
  });

  it('setScript replaces the script and starts the use counts over', async () => {
    const { sim, url } = await startSim({ script: { replies: [{ content: 'first' }], otherwise: 'error' } });
    try {
      expect(await contentOf(url, ask('a'))).toBe('first');
      sim.setScript({ replies: [{ content: 'second' }] });
      expect(await contentOf(url, ask('a'))).toBe('second');
      sim.setScript(null);
      expect(typeof (await contentOf(url, ask('a')))).toBe('string');
      expect(sim.log[2]?.scriptEntry).toBeNull();
    } finally {
      await sim.close();
    }
  });

  it('rejects a script with a typo, naming the field', () => {
    expect(() => parseSimScript({ replies: [{ contnet: 'x' }] })).toThrow(/contnet/);
    expect(() => parseSimScript({ replies: [{ fault: { kind: 'explode' } }] })).toThrow();
  });

  it('writes replies the way Qwen3 generates them', () => {
    expect(
      renderReplyText(
        {
          reasoning: 'r',
          content: 'c',
          toolCalls: [
            { name: 'a', arguments: { x: 1 } },
            { name: 'b', arguments: '{"y":2}' },
          ],
        },
        { thinking: true },
      ),
    ).toBe(
      '<think>\nr\n</think>\n\nc\n<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>\n<tool_call>\n{"name": "b", "arguments": {"y":2}}\n</tool_call>',
    );
    expect(renderReplyText({ reasoning: 'r', toolCalls: [{ name: 'a', arguments: {} }] }, { thinking: false })).toBe(
      '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>',
    );
    expect(renderReplyText({ text: 'raw', content: 'ignored' }, { thinking: true })).toBe('raw');
  });
});
