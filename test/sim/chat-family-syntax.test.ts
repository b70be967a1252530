import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { llama3ModelFolder } from '../token-faithful/llama3-model-folder.js';
import { mistralModelFolder } from '../token-faithful/mistral-model-folder.js';
import { postJson, sseChunks, startSim, WEATHER_TOOL } from './sim-test-helpers.js';

// The simulator's chat endpoint writes the served family's own text: the completion's token ids (what vLLM's chat
// endpoint returns with return_token_ids, and what a trainer gets in plain mode) decode to that family's syntax, and the
// message reports what vLLM's tool parser for the family reports (content before the calls, its ids).
const REPLY = { content: 'Hi.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
const REQUEST = { messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER_TOOL], return_token_ids: true, max_tokens: 200 };
const folders: Record<string, { dir: string; remove: () => void }> = {};
beforeAll(() => {
  folders.llama3 = llama3ModelFolder();
  folders.mistral = mistralModelFolder();
  folders['mistral-v11'] = mistralModelFolder({ v11: true });
});
afterAll(() => {
  for (const folder of Object.values(folders)) folder.remove();
});

interface ChatBody {
  choices: Array<{
    message: { content: string | null; tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> };
    token_ids: number[];
  }>;
}

const CASES = [
  { folder: 'llama3', syntax: '{"name": "get_weather", "parameters": {"city": "Paris"}}', content: null, id: /^chatcmpl-tool-[0-9a-f]{32}$/ },
  { folder: 'mistral', syntax: 'Hi.[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]', content: 'Hi.', id: /^[A-Za-z0-9]{9}$/ },
  { folder: 'mistral-v11', syntax: 'Hi.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', content: 'Hi.', id: /^[A-Za-z0-9]{9}$/ },
] as const;

describe("the simulator's chat endpoint speaks the served family", () => {
  for (const { folder, syntax, content, id } of CASES) {
    it(`${folder}: token_ids decode to the family's tool-call text; content and ids as vLLM's parser reports them`, async () => {
      const dir = folders[folder]!.dir;
      const { sim, url } = await startSim({ tokenizerDir: dir, script: { replies: [{ times: 'forever', ...REPLY }] } });
      try {
        const tokenizer = await loadHfTokenizer(dir);
        const body = (await (await postJson(`${url}/v1/chat/completions`, REQUEST)).json()) as ChatBody;
        const choice = body.choices[0]!;
        const text = tokenizer.decode(choice.token_ids);
        expect(text).toContain(syntax);
        expect(text).not.toContain('<tool_call>');
        expect(choice.message.content).toBe(content);
        expect(choice.message.tool_calls.map((call) => call.function)).toEqual([{ name: 'get_weather', arguments: '{"city": "Paris"}' }]);
        expect(choice.message.tool_calls[0]!.id).toMatch(id);

        const streamed = await (await postJson(`${url}/v1/chat/completions`, { ...REQUEST, stream: true })).text();
        const chunks = sseChunks(streamed);
        expect(tokenizer.decode(chunks.flatMap((chunk) => (chunk.choices[0]?.token_ids as number[] | undefined) ?? []))).toContain(syntax);
        const deltas = chunks.map((chunk) => chunk.choices[0]?.delta ?? {});
        expect(deltas.map((delta) => delta.content ?? '').join('')).toBe(content ?? '');
        const calls = deltas.flatMap((delta) => (delta.tool_calls as Array<Record<string, any>> | undefined) ?? []);
        expect(calls[0]!.id).toMatch(id);
        expect(calls.map((call) => call.function.arguments ?? '').join('')).toBe('{"city": "Paris"}');
      } finally {
        await sim.close();
      }
    });
  }
});
