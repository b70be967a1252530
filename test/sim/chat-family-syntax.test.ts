import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { createChatStreamDeltas } from '../../sim/chat-stream-deltas.js';
import { renderDeepSeekV3Reply } from '../../sim/render-deepseek-v3-reply.js';
import { renderDeepSeekV32Reply } from '../../sim/render-deepseek-v32-reply.js';
import { renderKimiK2Reply } from '../../sim/render-kimi-k2-reply.js';
import { renderLlama3Reply } from '../../sim/render-llama3-reply.js';
import { renderMistralReply } from '../../sim/render-mistral-reply.js';
import type { SimFamily } from '../../sim/sim-options.js';
import { deepSeekV3ModelFolder } from '../token-faithful/deepseek-v3-model-folder.js';
import { llama3ModelFolder } from '../token-faithful/llama3-model-folder.js';
import { mistralModelFolder } from '../token-faithful/mistral-model-folder.js';
import { qwen35ModelFolder } from '../token-faithful/qwen35-model-folder.js';
import { postJson, sseChunks, startSim, WEATHER_TOOL } from './sim-test-helpers.js';

// The simulator's chat endpoint writes the served family's own text: the completion's token ids (what vLLM's chat
// endpoint returns with return_token_ids, and what a trainer gets in plain mode) decode to that family's syntax, and the
// message reports what vLLM's tool parser for the family reports: content before the family's tool-call marker, its
// ids, and the arguments re-dumped (json.dumps) or as written. The second call's arguments are written compact, so the
// two differ.
const REPLY = {
  content: 'Hi.',
  toolCalls: [
    { name: 'get_weather', arguments: { city: 'Paris' } },
    { name: 'get_weather', arguments: '{"city":"Rome"}' },
  ],
};
const REQUEST = { messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER_TOOL], return_token_ids: true, max_tokens: 300 };
const DUMPED = ['{"city": "Paris"}', '{"city": "Rome"}'];
const AS_WRITTEN = ['{"city": "Paris"}', '{"city":"Rome"}'];
const VLLM_ID = /^chatcmpl-tool-[0-9a-f]{32}$/;
const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;
const D = '｜DSML｜';

const folders: Record<string, { dir: string; remove: () => void }> = {};
beforeAll(() => {
  folders.llama3 = llama3ModelFolder();
  folders.mistral = mistralModelFolder();
  folders['mistral-v11'] = mistralModelFolder({ v11: true });
  folders['deepseek-v3'] = withTemplateInConfig(deepSeekV3ModelFolder());
  folders['qwen3.5'] = withTemplateInConfig(qwen35ModelFolder());
});
afterAll(() => {
  for (const folder of Object.values(folders)) folder.remove();
});

/** The sim's tokenizer reads its chat template from tokenizer_config.json: copy the folder's chat_template.jinja there. */
function withTemplateInConfig(folder: { dir: string; remove: () => void }): { dir: string; remove: () => void } {
  const file = path.join(folder.dir, 'tokenizer_config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.chat_template = readFileSync(path.join(folder.dir, 'chat_template.jinja'), 'utf8');
  writeFileSync(file, JSON.stringify(config));
  return folder;
}

interface ChatBody {
  choices: Array<{
    message: { content: string | null; tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> };
    token_ids: number[];
  }>;
}

interface FamilyCase {
  name: string;
  /** the folder the sim serves (else the bundled Qwen3 tokenizer: no GLM or Kimi one could be had) */
  folder?: string;
  family?: SimFamily;
  syntax: string;
  content: string | null;
  arguments: readonly string[];
  ids: RegExp | readonly string[];
  streamedIds?: RegExp;
  /** the stream sends the arguments as written while the whole answer re-dumps them (vLLM's Hermes and Mistral parsers) */
  streamsAsWritten?: true;
}

const CASES: readonly FamilyCase[] = [
  {
    name: 'llama3',
    folder: 'llama3',
    syntax: '{"name": "get_weather", "parameters": {"city": "Paris"}}; {"name": "get_weather", "parameters": {"city":"Rome"}}',
    content: null,
    arguments: DUMPED,
    ids: VLLM_ID,
    streamsAsWritten: true,
  },
  {
    name: 'mistral',
    folder: 'mistral',
    syntax: 'Hi.[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_weather", "arguments": {"city":"Rome"}}]',
    content: 'Hi.',
    arguments: DUMPED,
    ids: MISTRAL_ID,
    streamsAsWritten: true,
  },
  {
    name: 'mistral-v11',
    folder: 'mistral-v11',
    syntax: 'Hi.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city":"Rome"}',
    content: 'Hi.',
    arguments: AS_WRITTEN,
    ids: MISTRAL_ID,
  },
  {
    name: 'deepseek-v3',
    folder: 'deepseek-v3',
    syntax: 'Hi.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜>',
    content: 'Hi.',
    arguments: AS_WRITTEN,
    ids: VLLM_ID,
  },
  {
    name: 'deepseek-v32',
    folder: 'deepseek-v3',
    family: 'deepseek-v32',
    syntax: `Hi.\n\n<${D}function_calls>\n<${D}invoke name="get_weather">\n<${D}parameter name="city" string="true">Paris</${D}parameter>`,
    content: 'Hi.\n\n',
    arguments: DUMPED,
    ids: VLLM_ID,
    streamedIds: /^call_[0-9a-f]{24}$/,
  },
  {
    name: 'kimi-k2',
    family: 'kimi-k2',
    syntax: 'Hi.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}',
    content: 'Hi.',
    arguments: AS_WRITTEN,
    ids: ['functions.get_weather:0', 'functions.get_weather:1'],
  },
  {
    name: 'glm45',
    family: 'glm45',
    syntax: 'Hi.<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>',
    content: 'Hi.',
    arguments: DUMPED,
    ids: VLLM_ID,
  },
  {
    name: 'qwen3.5',
    folder: 'qwen3.5',
    syntax: 'Hi.\n\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>',
    content: 'Hi.\n\n',
    arguments: DUMPED,
    ids: VLLM_ID,
    streamedIds: /^call_[0-9a-f]{24}$/,
  },
];

function expectIds(ids: readonly string[], expected: RegExp | readonly string[]): void {
  if (expected instanceof RegExp) for (const id of ids) expect(id).toMatch(expected);
  else expect(ids).toEqual(expected);
}

describe("the simulator's chat endpoint speaks the served family", () => {
  for (const testCase of CASES) {
    it(`${testCase.name}: token_ids decode to the family's text; content, ids and arguments as vLLM's parser reports them, streamed alike`, async () => {
      const dir = testCase.folder === undefined ? qwen3TokenizerDir() : folders[testCase.folder]!.dir;
      const script = { replies: [{ times: 'forever' as const, ...REPLY }] };
      const { sim, url } = await startSim({ tokenizerDir: dir, script, ...(testCase.family === undefined ? {} : { family: testCase.family }) });
      try {
        const tokenizer = await loadHfTokenizer(dir);
        const choice = ((await (await postJson(`${url}/v1/chat/completions`, REQUEST)).json()) as ChatBody).choices[0]!;
        const text = tokenizer.decode(choice.token_ids);
        expect(text).toContain(testCase.syntax);
        if (testCase.name !== 'glm45' && testCase.name !== 'qwen3.5') expect(text).not.toContain('<tool_call>');
        expect(choice.message.content).toBe(testCase.content);
        expect(choice.message.tool_calls.map((call) => call.function)).toEqual(
          testCase.arguments.map((json) => ({ name: 'get_weather', arguments: json })),
        );
        expectIds(
          choice.message.tool_calls.map((call) => call.id),
          testCase.ids,
        );

        const chunks = sseChunks(await (await postJson(`${url}/v1/chat/completions`, { ...REQUEST, stream: true })).text());
        expect(tokenizer.decode(chunks.flatMap((chunk) => (chunk.choices[0]?.token_ids as number[] | undefined) ?? []))).toContain(testCase.syntax);
        const deltas = chunks.map((chunk) => chunk.choices[0]?.delta ?? {});
        // the family's markup never reaches the streamed content: joined, it is the whole answer's content
        expect(deltas.map((delta) => delta.content ?? '').join('')).toBe(testCase.content ?? '');
        const calls = deltas.flatMap((delta) => (delta.tool_calls as Array<Record<string, any>> | undefined) ?? []);
        const streamed = [0, 1].map((index) => calls.filter((call) => call.index === index));
        expectIds(
          streamed.map((pieces) => pieces[0]!.id as string),
          testCase.streamedIds ?? testCase.ids,
        );
        expect(streamed.map((pieces) => pieces[0]!.function.name)).toEqual(['get_weather', 'get_weather']);
        const joined = streamed.map((pieces) => pieces.map((call) => call.function.arguments ?? '').join(''));
        expect(joined).toEqual(testCase.streamsAsWritten === true ? AS_WRITTEN : testCase.arguments);
      } finally {
        await sim.close();
      }
    });
  }
});

describe("the simulator's chat stream", () => {
  it("holds back content that may begin the served family's own tool-call marker (not Qwen3's <tool_call>)", () => {
    const call = { name: 'ls', arguments: {} };
    const cases = [
      { layout: renderKimiK2Reply({ content: 'x <|', toolCalls: [call] }, { thinking: false }), sent: 'x ' },
      { layout: renderDeepSeekV3Reply({ content: 'x <t', toolCalls: [call] }, { thinking: false }), sent: 'x <t' },
      { layout: renderDeepSeekV32Reply({ content: 'x <｜', toolCalls: [call] }, { thinking: false }), sent: 'x ' },
      { layout: renderMistralReply({ content: 'x [T', toolCalls: [call] }, { v11: true }), sent: 'x ' },
      { layout: renderLlama3Reply({ content: 'x <t' }), sent: 'x <t' },
    ];
    for (const { layout, sent } of cases) {
      // the content's tokens have come (the text starts with it), the marker's not yet
      expect(createChatStreamDeltas(layout, { parseToolCalls: true }).push(0, 4)?.content).toBe(sent);
    }
  });
});
