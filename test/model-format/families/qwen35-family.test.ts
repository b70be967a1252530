import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput, type OutputParserOptions } from '../../../gateway/token-faithful/output-parsers.js';
import { detectFamily, familyByName, readModelFolderFacts, resolveModelFamily } from '../../../model-format/families/model-families.js';
import { createQwen35ReasoningParser } from '../../../model-format/families/qwen3.5/create-qwen35-reasoning-parser.js';
import { templateThinksByDefault } from '../../../model-format/families/qwen3.5/index.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';
import { QWEN35_TEMPLATE_TOKENS, qwen35ModelFolder } from '../../token-faithful/qwen35-model-folder.js';

// The expected outputs below were written by reading vLLM's Qwen3ReasoningParser as changed for Qwen3.5 (PR #34779:
// vllm/reasoning/qwen3_reasoning_parser.py, extract_reasoning and extract_reasoning_streaming, with <tool_call> as an
// implicit end of reasoning) and tracing it by hand on each text (no vLLM was run here); thinking off is read as vLLM's
// server reads a prompt that ended the reasoning (prompt_is_reasoning_end: every delta content). The tool calls are the
// qwen3-coder parser's (test/token-faithful/output-parsers.test.ts).
const ON = { chatTemplateKwargs: { enable_thinking: true } };
const OFF = { chatTemplateKwargs: { enable_thinking: false } };
const TEMPLATE = readFileSync(fileURLToPath(new URL('../../fixtures/chat-templates/qwen-3.5-0.8b.jinja', import.meta.url)), 'utf8');
const CALL = '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>\n</tool_call>';
const TOOLS = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }];

let folder: { dir: string; remove: () => void };
beforeAll(() => {
  folder = qwen35ModelFolder();
});
afterAll(() => folder.remove());

describe("Qwen3.5 reasoning (vLLM's qwen3 parser since Qwen3.5: <think> sits in the prompt)", () => {
  const parser = createQwen35ReasoningParser({ thinkingByDefault: true });

  it('thinking on: reasoning up to </think> or a <tool_call>, all reasoning without either; a <think> the model wrote is cut', () => {
    expect(parser.split('sum it\n</think>\n\n3', ON)).toEqual({ reasoning: 'sum it\n', content: '\n\n3' });
    expect(parser.split('<think>\nx\n</think>\n\nHi')).toEqual({ reasoning: '\nx\n', content: '\n\nHi' });
    expect(parser.split('cut off', ON)).toEqual({ reasoning: 'cut off', content: null });
    expect(parser.split(`let me call\n${CALL}`, ON)).toEqual({ reasoning: 'let me call\n', content: CALL });
    expect(parser.split('done</think>', ON)).toEqual({ reasoning: 'done', content: null });
  });

  it('thinking off (enable_thinking false, or the template default): all content, whole and streamed', () => {
    expect(parser.split('Hi</think>', OFF)).toEqual({ reasoning: null, content: 'Hi</think>' });
    const off = createQwen35ReasoningParser({ thinkingByDefault: false });
    expect(off.split('Hi')).toEqual({ reasoning: null, content: 'Hi' });
    expect(off.split('hm\n</think>\n\nHi', ON)).toEqual({ reasoning: 'hm\n', content: '\n\nHi' });
    const stream = off.createStream();
    expect(['Hi', '</think>'].map((delta) => stream.push(delta))).toEqual([{ content: 'Hi' }, { content: '</think>' }]);
  });

  it('streams reasoning until </think> (which yields nothing) or <tool_call> (which starts the content), then content', () => {
    const stream = parser.createStream(ON);
    expect(['sum', ' it\n', '</think>', '\n\n', '3'].map((delta) => stream.push(delta))).toEqual([
      { reasoning: 'sum' },
      { reasoning: ' it\n' },
      null,
      { content: '\n\n' },
      { content: '3' },
    ]);
    const implicit = parser.createStream();
    expect(['hm', '<tool_call>', '\n'].map((delta) => implicit.push(delta))).toEqual([
      { reasoning: 'hm' },
      { content: '<tool_call>' },
      { content: '\n' },
    ]);
    expect(parser.createStream().push('ok</think>Yes')).toEqual({ reasoning: 'ok', content: 'Yes' });
  });
});

describe('the qwen3.5 family', () => {
  it('is detected from model_type qwen3_5* or its template, which the qwen3 family no longer claims', () => {
    for (const modelType of ['qwen3_5', 'qwen3_5_moe', 'qwen3_5_text']) expect(detectFamily({ modelType, template: '' })?.name).toBe('qwen3.5');
    expect(detectFamily({ modelType: null, template: TEMPLATE })?.name).toBe('qwen3.5');
    expect(familyByName('qwen3')!.detect({ modelType: null, template: TEMPLATE })).toBe(false);
    expect(detectFamily(readModelFolderFacts(qwen3TokenizerDir()))?.name).toBe('qwen3');
  });

  it("reads the template's thinking default: Qwen3.5-0.8B's thinks only when asked; Qwen3's says nothing", () => {
    expect(templateThinksByDefault(TEMPLATE)).toBe(false);
    expect(templateThinksByDefault(readModelFolderFacts(qwen3TokenizerDir()).template)).toBeNull();
  });

  it('has the qwen3 reasoning parser and qwen3-coder tool calls; a folder whose template does not think by default reads content', () => {
    const resolved = resolveModelFamily({ modelDir: folder.dir });
    expect(resolved).toMatchObject({ family: { name: 'qwen3.5' }, reasoningParser: 'qwen3', toolCallParser: 'qwen3-coder' });
    expect(resolved.family.reasoning!.split('Hi')).toEqual({ reasoning: null, content: 'Hi' });
    expect(resolved.family.reasoning!.split('hm</think>Hi', ON)).toEqual({ reasoning: 'hm', content: 'Hi' });
    // without a folder, vLLM's default: thinking on unless enable_thinking is false
    expect(resolveModelFamily({ modelFamily: 'qwen3.5' }).family.reasoning!.split('hm</think>Hi')).toEqual({ reasoning: 'hm', content: 'Hi' });
  });

  it('reads reasoning, content and XML tool calls, whole and streamed alike', () => {
    const options: OutputParserOptions = {
      family: familyByName('qwen3.5')!,
      reasoning: 'qwen3',
      toolCalls: 'qwen3-coder',
      tools: TOOLS,
      parseToolCalls: true,
      chatTemplateKwargs: { enable_thinking: true },
    };
    const text = `plan\n</think>\n\nReading.\n\n${CALL}`;
    expect(parseOutput(text, options)).toEqual({
      reasoning: 'plan\n',
      content: '\n\nReading.\n\n',
      toolCalls: [
        { id: expect.stringMatching(/^chatcmpl-tool-/), type: 'function', function: { name: 'read_file', arguments: '{"path": "src/a.ts"}' } },
      ],
    });
    const stream = createOutputStreamParser(options);
    const deltas = [
      'plan',
      '\n',
      '</think>',
      '\n\n',
      'Reading.',
      '\n\n',
      '<tool_call>',
      '\n',
      '<function=read_file>\n<parameter=path>\nsrc/a.ts\n</parameter>\n</function>',
      '\n</tool_call>',
    ];
    const pushed = deltas.map((delta) => stream.push(delta)).filter((delta) => delta !== null);
    expect(pushed.flatMap((delta) => (delta.reasoning === undefined ? [] : [delta.reasoning])).join('')).toBe('plan\n');
    expect(pushed.flatMap((delta) => (delta.content === undefined ? [] : [delta.content])).join('')).toBe('\n\nReading.\n\n');
    expect(pushed.flatMap((delta) => delta.tool_calls ?? []).map((call) => call.function)).toEqual([
      { name: 'read_file', arguments: '{"path": "src/a.ts"}' },
    ]);
  });

  it("writes only special tokens the Qwen3 tokenizer has, each one token, so its tokenizer stands in for Qwen3.5's", async () => {
    const tokenizer = await loadHfTokenizer(folder.dir);
    for (const token of QWEN35_TEMPLATE_TOKENS) {
      expect(TEMPLATE.includes(token), token).toBe(true);
      const ids = tokenizer.encode(token);
      expect(ids, token).toHaveLength(1);
      expect(tokenizer.decode(ids)).toBe(token);
    }
  });
});
