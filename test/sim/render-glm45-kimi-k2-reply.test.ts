import { describe, expect, it } from 'vitest';
import { parseOutput } from '../../gateway/token-faithful/output-parsers.js';
import { familyByName } from '../../model-format/families/model-families.js';
import { renderGlm45Reply } from '../../sim/render-glm45-reply.js';
import { renderKimiK2Reply } from '../../sim/render-kimi-k2-reply.js';
import { postJson, startSim } from './sim-test-helpers.js';

// The simulator's writers for GLM-4.5 and Kimi K2, read back by the gateway's parsers for the family (the simulator
// never imports them): what the sim meant to say is what the gateway reads, for a reply with reasoning, content, two
// parallel calls (one with a non-string value) and string arguments given as JSON text.
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

describe('the GLM-4.5 writer', () => {
  it("writes <think>, content and <tool_call>/<arg_key> calls that vLLM's glm45 parsers (the gateway's) read back", () => {
    const layout = renderGlm45Reply(REPLY, { thinking: true });
    expect(layout.text).toBe(
      '<think>Two files to look at.</think>Looking.<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a b.txt</arg_value>\n</tool_call>' +
        '<tool_call>grep\n<arg_key>pattern</arg_key>\n<arg_value>x\ny</arg_value>\n<arg_key>max</arg_key>\n<arg_value>3</arg_value>\n</tool_call>',
    );
    const parsed = parseOutput(layout.text, {
      family: familyByName('glm45')!,
      reasoning: 'glm45',
      toolCalls: 'glm45',
      tools: TOOLS,
      parseToolCalls: true,
    });
    expect(parsed.reasoning).toBe(REPLY.reasoning);
    expect(parsed.content).toBe(REPLY.content);
    expect(parsed.toolCalls.map((call) => call.function)).toEqual(
      layout.toolCalls.map((call) => ({ name: call.name, arguments: call.argumentsText })),
    );
    expect(parsed.toolCalls.map((call) => JSON.parse(call.function.arguments) as unknown)).toEqual([
      { path: 'a b.txt' },
      { pattern: 'x\ny', max: 3 },
    ]);
  });
});

describe('the Kimi K2 writer', () => {
  it('writes the section with functions.NAME:IDX ids that the gateway reads back as the calls and their ids', () => {
    const layout = renderKimiK2Reply(REPLY, { thinking: true });
    const parsed = parseOutput(layout.text, {
      family: familyByName('kimi-k2')!,
      reasoning: 'kimi-k2',
      toolCalls: 'kimi-k2',
      tools: TOOLS,
      parseToolCalls: true,
    });
    expect(parsed).toEqual({
      reasoning: REPLY.reasoning,
      content: REPLY.content,
      toolCalls: [
        { id: 'functions.read_file:0', type: 'function', function: { name: 'read_file', arguments: '{"path": "a b.txt"}' } },
        { id: 'functions.grep:1', type: 'function', function: { name: 'grep', arguments: '{"pattern": "x\\ny", "max": 3}' } },
      ],
    });
    expect(renderKimiK2Reply({ content: 'Hi.', reasoning: 'r' }, { thinking: false }).text).toBe('Hi.');
  });
});

describe('the simulator with family glm45 or kimi-k2', () => {
  it("answers /v1/completions with the family's text (the bundled Qwen3 tokenizer: no GLM or Kimi one could be had)", async () => {
    for (const [family, render] of [
      ['glm45', renderGlm45Reply],
      ['kimi-k2', renderKimiK2Reply],
    ] as const) {
      const { sim, url } = await startSim({ family, script: { replies: [{ times: 'forever', ...REPLY }] } });
      try {
        const response = await postJson(`${url}/v1/completions`, { prompt: 'Hi', max_tokens: 500 });
        const body = (await response.json()) as { choices: Array<{ text: string }> };
        expect(body.choices[0]!.text).toBe(render(REPLY, { thinking: false }).text);
      } finally {
        await sim.close();
      }
    }
  });
});
