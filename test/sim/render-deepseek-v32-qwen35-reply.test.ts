import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputParserOptions } from '../../gateway/token-faithful/output-parsers.js';
import { familyByName } from '../../model-format/families/model-families.js';
import { renderDeepSeekV32Reply } from '../../sim/render-deepseek-v32-reply.js';
import { renderQwen35Reply } from '../../sim/render-qwen35-reply.js';
import { deepSeekV3ModelFolder } from '../token-faithful/deepseek-v3-model-folder.js';
import { qwen35ModelFolder } from '../token-faithful/qwen35-model-folder.js';
import { postJson, startSim } from './sim-test-helpers.js';

// The simulator's writers for DeepSeek V3.2's DSML and for Qwen3.5, read back by the gateway's parsers for the family
// (the simulator never imports them): what the sim meant to say is what the gateway reads, for a reply with reasoning,
// content, two parallel calls (one with a non-string value) and string arguments given as JSON text.
const TOOLS = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
  {
    type: 'function',
    function: { name: 'grep', parameters: { type: 'object', properties: { pattern: { type: 'string' }, max: { type: 'integer' } } } },
  },
];
const REPLY = {
  reasoning: 'Two files to look at.',
  content: 'Looking.',
  toolCalls: [
    { name: 'read_file', arguments: { path: 'a b.txt' } },
    { name: 'grep', arguments: '{"pattern": "x\\ny", "max": 3}' },
  ],
};
const D = '｜DSML｜';

let deepSeek: { dir: string; remove: () => void };
let qwen35: { dir: string; remove: () => void };
beforeAll(() => {
  deepSeek = deepSeekV3ModelFolder();
  qwen35 = qwen35ModelFolder();
});
afterAll(() => {
  deepSeek.remove();
  qwen35.remove();
});

/** The whole parse and the streamed one (fed token-sized pieces), each as { reasoning, content, calls }. */
function readBack(text: string, options: OutputParserOptions): Array<{ reasoning: string | null; content: string | null; calls: unknown[] }> {
  const whole = parseOutput(text, options);
  const stream = createOutputStreamParser(options);
  const deltas = [...text.matchAll(/<[^>]*>|[^<]{1,3}/g)].map((match) => stream.push(match[0]));
  const joined = (field: 'reasoning' | 'content'): string | null => deltas.map((delta) => delta?.[field] ?? '').join('') || null;
  const streamedArguments: string[] = [];
  for (const delta of deltas)
    for (const call of delta?.tool_calls ?? [])
      streamedArguments[call.index] = (streamedArguments[call.index] ?? '') + (call.function.arguments ?? '');
  return [
    { reasoning: whole.reasoning, content: whole.content, calls: whole.toolCalls.map((call) => JSON.parse(call.function.arguments) as unknown) },
    { reasoning: joined('reasoning'), content: joined('content'), calls: streamedArguments.map((json) => JSON.parse(json) as unknown) },
  ];
}

describe('the DeepSeek V3.2 DSML writer', () => {
  it("writes reasoning, </think>, content and a DSML section that vLLM's deepseek_v32 parser (the gateway's) reads back", () => {
    const layout = renderDeepSeekV32Reply(REPLY, { thinking: true });
    expect(layout.text).toBe(
      `Two files to look at.</think>Looking.\n\n<${D}function_calls>\n` +
        `<${D}invoke name="read_file">\n<${D}parameter name="path" string="true">a b.txt</${D}parameter>\n</${D}invoke>\n` +
        `<${D}invoke name="grep">\n<${D}parameter name="pattern" string="true">x\ny</${D}parameter>\n` +
        `<${D}parameter name="max" string="false">3</${D}parameter>\n</${D}invoke>\n</${D}function_calls>`,
    );
    const options: OutputParserOptions = {
      family: familyByName('deepseek-v3')!,
      reasoning: 'deepseek-v3',
      toolCalls: 'deepseek-v32',
      tools: TOOLS,
      parseToolCalls: true,
      chatTemplateKwargs: { thinking: true },
    };
    const meant = { reasoning: REPLY.reasoning, content: 'Looking.\n\n', calls: [{ path: 'a b.txt' }, { pattern: 'x\ny', max: 3 }] };
    expect(readBack(layout.text, options)).toEqual([meant, meant]);
    expect(parseOutput(layout.text, options).toolCalls.map((call) => call.function.arguments)).toEqual(
      layout.toolCalls.map((call) => call.argumentsText),
    );
    expect(renderDeepSeekV32Reply({ content: 'Hi.', reasoning: 'r' }, { thinking: false }).text).toBe('Hi.');
  });

  it('is the simulator of family deepseek-v32, or of a folder whose template writes DSML (DeepSeek V3 tokenizer)', async () => {
    const expected = renderDeepSeekV32Reply(REPLY, { thinking: false }).text;
    const { sim, url } = await startSim({
      family: 'deepseek-v32',
      tokenizerDir: deepSeek.dir,
      script: { replies: [{ times: 'forever', ...REPLY }] },
    });
    try {
      const response = await postJson(`${url}/v1/completions`, { prompt: 'Hi', max_tokens: 500 });
      expect(((await response.json()) as { choices: Array<{ text: string }> }).choices[0]!.text).toBe(expected);
    } finally {
      await sim.close();
    }
    writeFileSync(path.join(deepSeek.dir, 'chat_template.jinja'), `{{ bos_token }}{{ '<${D}function_calls>' }}<｜Assistant｜>`);
    const picked = await startSim({ tokenizerDir: deepSeek.dir, script: { replies: [{ times: 'forever', ...REPLY }] } });
    try {
      const response = await postJson(`${picked.url}/v1/completions`, { prompt: 'Hi', max_tokens: 500 });
      expect(((await response.json()) as { choices: Array<{ text: string }> }).choices[0]!.text).toBe(expected);
    } finally {
      await picked.sim.close();
    }
  });
});

describe('the Qwen3.5 writer', () => {
  it("writes reasoning after the prompt's <think>, content and XML calls that the gateway's qwen3.5 parsers read back", () => {
    const layout = renderQwen35Reply(REPLY, { thinking: true });
    expect(layout.text).toBe(
      'Two files to look at.\n</think>\n\nLooking.\n\n<tool_call>\n<function=read_file>\n<parameter=path>\na b.txt\n</parameter>\n</function>\n</tool_call>' +
        '\n<tool_call>\n<function=grep>\n<parameter=pattern>\nx\ny\n</parameter>\n<parameter=max>\n3\n</parameter>\n</function>\n</tool_call>',
    );
    const options: OutputParserOptions = {
      family: familyByName('qwen3.5')!,
      reasoning: 'qwen3',
      toolCalls: 'qwen3-coder',
      tools: TOOLS,
      parseToolCalls: true,
      chatTemplateKwargs: { enable_thinking: true },
    };
    const meant = { reasoning: 'Two files to look at.\n', content: '\n\nLooking.\n\n', calls: [{ path: 'a b.txt' }, { pattern: 'x\ny', max: 3 }] };
    expect(readBack(layout.text, options)).toEqual([meant, meant]);
    expect(renderQwen35Reply({ toolCalls: [{ name: 'ls', arguments: {} }] }, { thinking: false }).text).toBe(
      '<tool_call>\n<function=ls>\n</function>\n</tool_call>',
    );
  });

  it('is the simulator of a Qwen3.5 folder, thinking only after a prompt that opened the think block', async () => {
    const { sim, url } = await startSim({ tokenizerDir: qwen35.dir, script: { replies: [{ times: 'forever', ...REPLY }] } });
    try {
      for (const [prompt, thinking] of [
        ['<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n', true],
        ['<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n', false],
      ] as const) {
        const response = await postJson(`${url}/v1/completions`, { prompt, max_tokens: 500 });
        expect(((await response.json()) as { choices: Array<{ text: string }> }).choices[0]!.text).toBe(renderQwen35Reply(REPLY, { thinking }).text);
      }
    } finally {
      await sim.close();
    }
  });
});
