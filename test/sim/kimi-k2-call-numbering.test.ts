import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kimiK2ModelFolder } from '../token-faithful/kimi-k2-model-folder.js';
import { READ_FILE_TOOL } from '../token-faithful/tool-loop-drivers.js';
import { postJson, startSim } from './sim-test-helpers.js';

// Kimi K2 numbers its calls across the conversation (`functions.NAME:IDX`, IDX counting every call so far): the
// simulated model reads the count from its prompt, as rendered by the folder's template (K2-Thinking's writes each
// earlier call back with its id) or as sent
const CALL = { name: 'read_file', arguments: { path: 'src/c.ts' } };
const HISTORY = [
  { role: 'user', content: 'Read a and b, then c.' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: 'functions.read_file:0', type: 'function', function: { name: 'read_file', arguments: '{"path": "src/a.ts"}' } },
      { id: 'functions.read_file:1', type: 'function', function: { name: 'read_file', arguments: '{"path": "src/b.ts"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'functions.read_file:0', content: 'A' },
  { role: 'tool', tool_call_id: 'functions.read_file:1', content: 'B' },
];

describe('the simulated Kimi K2 numbers its calls across the conversation', () => {
  let folder: { dir: string; remove: () => void };
  beforeAll(() => {
    folder = kimiK2ModelFolder();
  });
  afterAll(() => folder.remove());

  it('on /v1/chat/completions: the third call of the conversation is functions.read_file:2', async () => {
    const { sim, url } = await startSim({
      tokenizerDir: folder.dir,
      modelName: 'sim',
      script: { replies: [{ times: 'forever', toolCalls: [CALL] }] },
    });
    try {
      const response = await postJson(`${url}/v1/chat/completions`, { model: 'sim', messages: HISTORY, tools: [READ_FILE_TOOL] });
      const body = (await response.json()) as { choices: Array<{ message: { tool_calls: Array<{ id: string }> } }> };
      expect(body.choices[0]!.message.tool_calls.map((call) => call.id)).toEqual(['functions.read_file:2']);
      expect(sim.log[0]!.text).toContain('<|tool_call_begin|>functions.read_file:2<|tool_call_argument_begin|>');
    } finally {
      await sim.close();
    }
  });

  it('on /v1/completions: from the calls in the prompt text, and from 0 in a prompt without any', async () => {
    const { sim, url } = await startSim({
      tokenizerDir: folder.dir,
      modelName: 'sim',
      script: { replies: [{ times: 'forever', toolCalls: [CALL] }] },
    });
    try {
      const prompt = '<|im_assistant|>assistant<|im_middle|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{}<|tool_call_end|>';
      const texts: string[] = [];
      for (const text of [prompt, 'Hi']) {
        const response = await postJson(`${url}/v1/completions`, { model: 'sim', prompt: text, max_tokens: 100 });
        texts.push(((await response.json()) as { choices: Array<{ text: string }> }).choices[0]!.text);
      }
      expect(texts.map((text) => /functions\.read_file:\d+/.exec(text)?.[0])).toEqual(['functions.read_file:1', 'functions.read_file:0']);
    } finally {
      await sim.close();
    }
  });
});
