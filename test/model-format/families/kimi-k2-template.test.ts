import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalPromptRenderer } from '../../../gateway/token-faithful/local-prompt-renderer.js';
import { normalizeChatMessages } from '../../../model-format/chat-template/normalize-chat-messages.js';
import { renderChatTemplate } from '../../../model-format/chat-template/render-chat-template.js';
import { detectFamily, familyByName, readModelFolderFacts, resolveModelFamily } from '../../../model-format/families/model-families.js';
import { KIMI_EOS, KIMI_IM_END, KIMI_TEMPLATES, kimiK2ModelFolder } from '../../token-faithful/kimi-k2-model-folder.js';
import { READ_FILE_TOOL } from '../../token-faithful/tool-loop-drivers.js';

// The kimi-k2 family against Moonshot's own templates (test/fixtures/chat-templates/SOURCES.md): K2-Thinking's, and
// K2-Instruct's first, which writes neither reasoning nor tool calls back
const template = (name: keyof typeof KIMI_TEMPLATES): string =>
  readFileSync(new URL(`../../fixtures/chat-templates/${KIMI_TEMPLATES[name]}`, import.meta.url), 'utf8');
const kimi = familyByName('kimi-k2')!;

// an earlier turn as the model wrote it (compact JSON, reasoning), its result, the answer, and a new question
const MESSAGES = [
  { role: 'user', content: 'Q?' },
  {
    role: 'assistant',
    content: 'Reading.',
    reasoning: 'Plan.',
    tool_calls: [{ id: 'functions.read_file:0', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }],
  },
  { role: 'tool', tool_call_id: 'functions.read_file:0', content: 'A' },
  { role: 'assistant', content: 'It says A.', reasoning: 'Done.' },
  { role: 'user', content: 'And b?' },
];

function render(name: keyof typeof KIMI_TEMPLATES, messages: readonly unknown[] = MESSAGES): string {
  return renderChatTemplate({
    template: template(name),
    messages: normalizeChatMessages(messages),
    tools: [READ_FILE_TOOL],
    addGenerationPrompt: true,
  });
}

describe('the kimi-k2 family and Moonshot K2 templates', () => {
  const folders: Record<string, { dir: string; remove: () => void }> = {};
  beforeAll(() => {
    folders.thinking = kimiK2ModelFolder({ template: 'thinking' });
    folders.instruct = kimiK2ModelFolder({ template: 'instruct' });
  });
  afterAll(() => Object.values(folders).forEach((folder) => folder.remove()));

  it('detects both from model_type kimi_k2, and from either template alone (the first K2-Instruct one has no tool-call markers)', () => {
    expect(detectFamily(readModelFolderFacts(folders.thinking!.dir))?.name).toBe('kimi-k2');
    expect(detectFamily(readModelFolderFacts(folders.instruct!.dir))?.name).toBe('kimi-k2');
    expect(detectFamily({ modelType: null, template: template('thinking') })?.name).toBe('kimi-k2');
    expect(detectFamily({ modelType: null, template: template('instruct') })?.name).toBe('kimi-k2');
  });

  it("reads reasoning by default for a K2-Thinking folder, none for a K2-Instruct one (its template writes no <think>; vLLM's recipe runs it without a reasoning parser)", () => {
    expect(resolveModelFamily({ modelDir: folders.thinking!.dir })).toMatchObject({ reasoningParser: 'kimi-k2', toolCallParser: 'kimi-k2' });
    expect(resolveModelFamily({ modelDir: folders.instruct!.dir })).toMatchObject({ reasoningParser: 'none', toolCallParser: 'kimi-k2' });
    // named without a folder, the family is K2-Thinking's
    expect(resolveModelFamily({ modelFamily: 'kimi-k2' }).reasoningParser).toBe('kimi-k2');
  });

  it('K2-Thinking drops the reasoning of turns up to the last answer and writes the arguments back with tojson (history flags)', () => {
    const text = render('thinking');
    expect(text).toContain('<|im_assistant|>assistant<|im_middle|><think></think>Reading.<|tool_calls_section_begin|>');
    expect(text).not.toContain('Plan.');
    expect(text).not.toContain('Done.');
    expect(text).toContain('<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{"path": "a"}<|tool_call_end|>');
    expect(text).toContain('<|im_system|>tool<|im_middle|>## Return of functions.read_file:0\nA<|im_end|>');
    expect(text.endsWith('<|im_user|>user<|im_middle|>And b?<|im_end|><|im_assistant|>assistant<|im_middle|>')).toBe(true);
    expect(kimi.history).toMatchObject({ dropsReasoning: true, reserializesToolArguments: true });
  });

  it('K2-Instruct (its first template) writes an assistant turn as its content only, and a result without its id', () => {
    const text = render('instruct');
    expect(text).toContain('<|im_assistant|>assistant<|im_middle|>Reading.<|im_end|><|im_system|>tool<|im_middle|>A<|im_end|>');
    expect(text).not.toContain('<|tool_call_begin|>');
    expect(text).not.toContain('Plan.');
  });

  it("finds a turn the model ended with [EOS] (the tokenizer's EOS, a stop id beside <|im_end|>), as the template closes it with <|im_end|>", async () => {
    expect(kimi.history.endOfTurnTokens).toEqual(['<|im_end|>', '[EOS]']);
    const renderer = createLocalPromptRenderer(folders.thinking!.dir, kimi);
    const request = {
      model: null,
      messages: [...MESSAGES.slice(0, 3)] as Array<Record<string, unknown>>,
      tools: [READ_FILE_TOOL],
      chatTemplateKwargs: null,
      chatTemplate: null,
      addGenerationPrompt: true,
    };
    const signal = new AbortController().signal;
    const afterImEnd = await renderer.renderAfterTurn(request, 2, KIMI_IM_END, signal);
    expect(afterImEnd).not.toBeNull();
    expect(await renderer.renderAfterTurn(request, 2, KIMI_EOS, signal)).toEqual(afterImEnd);
  });
});
