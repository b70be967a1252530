import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalPromptRenderer } from '../../../gateway/token-faithful/local-prompt-renderer.js';
import type { PromptRequest } from '../../../gateway/token-faithful/prompt-renderer.js';
import { normalizeChatMessages, normalizeChatTools } from '../../../model-format/chat-template/normalize-chat-messages.js';
import { renderChatTemplate } from '../../../model-format/chat-template/render-chat-template.js';
import { detectFamily, familyByName } from '../../../model-format/families/model-families.js';
import { loadHfTokenizer, type HfTokenizer } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { GLM_NAMES, glm45ModelFolder } from '../../token-faithful/glm45-model-folder.js';
import { READ_FILE_TOOL } from '../../token-faithful/tool-loop-drivers.js';

// GLM-4.6's template (llama.cpp's copy of zai-org's, test/fixtures/chat-templates/SOURCES.md)
const TEMPLATE = readFileSync(new URL('../../fixtures/chat-templates/glm-4.6.jinja', import.meta.url), 'utf8');
const signal = new AbortController().signal;
const idOf = (name: string): number => GLM_NAMES.find((entry) => entry[1] === name)![0];

const CALL = { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } };
const FIRST_TURN: Array<Record<string, unknown>> = [
  { role: 'user', content: 'Read a.' },
  { role: 'assistant', content: 'On it.', reasoning_content: 'One file.', tool_calls: [CALL] },
];
const TOOL_RESULT = { role: 'tool', tool_call_id: 'c1', content: 'export function a() {}' };

function render(messages: Array<Record<string, unknown>>, addGenerationPrompt = false): string {
  return renderChatTemplate({
    template: TEMPLATE,
    messages: normalizeChatMessages(messages),
    tools: normalizeChatTools([READ_FILE_TOOL]),
    addGenerationPrompt,
    extraContext: {},
  });
}

describe("the glm45 family against GLM-4.6's template", () => {
  it('is detected from the template alone, and from model_type glm4_moe', () => {
    expect(detectFamily({ modelType: null, template: TEMPLATE })?.name).toBe('glm45');
    expect(detectFamily({ modelType: 'glm4_moe', template: TEMPLATE })?.name).toBe('glm45');
  });

  it("drops an earlier turn's reasoning and rewrites its calls from the parsed arguments: history flags both true", () => {
    const family = familyByName('glm45')!;
    // the turn after the last user message keeps its reasoning; the arguments' JSON text is not what is written
    expect(render([...FIRST_TURN, TOOL_RESULT])).toContain(
      '<|assistant|>\n<think>One file.</think>\nOn it.\n<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>src/a.ts</arg_value>\n</tool_call><|observation|>',
    );
    // after a new user message it is written without
    expect(render([...FIRST_TURN, TOOL_RESULT, { role: 'user', content: 'Thanks.' }])).toContain('<|assistant|>\n<think></think>\nOn it.\n');
    expect(family.history).toMatchObject({ dropsReasoning: true, reserializesToolArguments: true });
  });

  it("writes no token after an assistant turn: the next message's role token closes it, and is what the model stops at", () => {
    const turn = render(FIRST_TURN);
    expect(turn.endsWith('</tool_call>')).toBe(true);
    expect(render([...FIRST_TURN, TOOL_RESULT]).slice(turn.length)).toBe(
      '<|observation|>\n<tool_response>\nexport function a() {}\n</tool_response>',
    );
    const answer = [
      { role: 'user', content: 'Hi.' },
      { role: 'assistant', content: 'Hello.' },
    ];
    expect(render([...answer, { role: 'user', content: 'Stop.' }]).slice(render(answer).length)).toBe('<|user|>\nStop.');
    expect(familyByName('glm45')!.history.nextRoleTokens).toEqual(['<|system|>', '<|user|>', '<|assistant|>', '<|observation|>']);
  });

  it("reads the output with its special tokens, as vLLM's glm45 tool parser asks (skip_special_tokens: false with tools)", () => {
    expect(familyByName('glm45')!.keepsSpecialTokens).toBe(true);
  });
});

describe('a GLM turn found after the role token the model stopped at (local renderer, a GLM folder built for the test)', () => {
  let folder: { dir: string; remove: () => void };
  let tokenizer: HfTokenizer;
  beforeAll(async () => {
    folder = glm45ModelFolder();
    tokenizer = await loadHfTokenizer(folder.dir);
  });
  afterAll(() => folder.remove());

  const request = (messages: Array<Record<string, unknown>>): PromptRequest => ({
    model: null,
    messages,
    tools: [READ_FILE_TOOL],
    chatTemplateKwargs: null,
    chatTemplate: null,
    addGenerationPrompt: true,
  });

  it('after <|observation|>: the tool results and the generation prompt, the sampled token not written again', async () => {
    const renderer = createLocalPromptRenderer(folder.dir, familyByName('glm45'));
    const ids = await renderer.renderAfterTurn(request([...FIRST_TURN, TOOL_RESULT]), 2, idOf('<|observation|>'), signal);
    expect(tokenizer.decode(ids!)).toBe('\n<tool_response>\nexport function a() {}\n</tool_response><|assistant|>');
  });

  it('after <|user|>: the new user message, though the template now writes the turn without its reasoning', async () => {
    const renderer = createLocalPromptRenderer(folder.dir, familyByName('glm45'));
    const messages = [...FIRST_TURN, TOOL_RESULT, { role: 'assistant', content: 'a() it is.' }, { role: 'user', content: 'And b?' }];
    const ids = await renderer.renderAfterTurn(request(messages), 4, idOf('<|user|>'), signal);
    expect(tokenizer.decode(ids!)).toBe('\nAnd b?<|assistant|>');
  });

  it('after <|endoftext|>, which the template never writes: not found (rendered fresh)', async () => {
    const renderer = createLocalPromptRenderer(folder.dir, familyByName('glm45'));
    expect(await renderer.renderAfterTurn(request([...FIRST_TURN, TOOL_RESULT]), 2, idOf('<|endoftext|>'), signal)).toBeNull();
  });
});
