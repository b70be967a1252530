import type { FamilyReasoningParser, ModelFamily, ModelFolderFacts } from '../model-family.js';
import { createDeepSeekV3ToolCallStream } from './create-deepseek-v3-tool-call-stream.js';
import { createDeepSeekV32ToolCallStream } from './create-deepseek-v32-tool-call-stream.js';
import { createDeepSeekV31ToolCallStream, parseDeepSeekV31ToolCalls, TOOL_CALLS_BEGIN } from './parse-deepseek-v31-tool-calls.js';
import { DSML_CALLS_START, parseDeepSeekV32ToolCalls } from './parse-deepseek-v32-tool-calls.js';
import { parseDeepSeekV3ToolCalls, V3_TOOL_SYNTAX } from './parse-deepseek-v3-tool-calls.js';
import { renderDeepSeekV32Chat } from './render-deepseek-v32-chat.js';
import { createDeepSeekR1ReasoningStream, DEEPSEEK_THINK_END, splitDeepSeekR1Reasoning } from './split-deepseek-r1-reasoning.js';
import { createDeepSeekV3ReasoningStream, splitDeepSeekV3Reasoning } from './split-deepseek-v3-reasoning.js';

// DeepSeek V3 / V3.1 (`deepseek_v3`) and V3.2 (`deepseek_v32`, V3.2-Exp too)
const MODEL_TYPES = new Set(['deepseek_v3', 'deepseek_v32']);

const V31_TOOL_CALLS: ModelFamily['toolCalls'][string] = {
  parse: (content) => parseDeepSeekV31ToolCalls(content),
  createStream: () => createDeepSeekV31ToolCallStream(),
};
const V32_TOOL_CALLS: ModelFamily['toolCalls'][string] = { parse: parseDeepSeekV32ToolCalls, createStream: createDeepSeekV32ToolCallStream };
// the first V3 syntax (DeepSeek-V3, V3-0324, R1-0528): `function<｜tool▁sep｜>NAME` and fenced JSON
const V3_TOOL_CALLS: ModelFamily['toolCalls'][string] = {
  parse: (content) => parseDeepSeekV3ToolCalls(content),
  createStream: () => createDeepSeekV3ToolCallStream(),
};

// vLLM's deepseek_v3 (thinking by chat_template_kwargs) and deepseek_r1 (R1 always thinks: `--reasoning-parser deepseek_r1`)
const V3_REASONING: FamilyReasoningParser = { name: 'deepseek-v3', split: splitDeepSeekV3Reasoning, createStream: createDeepSeekV3ReasoningStream };
const R1_REASONING: FamilyReasoningParser = {
  name: 'deepseek-r1',
  split: (text) => splitDeepSeekR1Reasoning(text),
  createStream: () => createDeepSeekR1ReasoningStream(),
};

/**
 * DeepSeek V3, V3.1 and V3.2 (vLLM's `deepseek_v3` reasoning parser; tool parsers `deepseek_v31`, `deepseek_v32`, `deepseek_v3`):
 * V3.1's `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>` (the
 * default: what V3.1's template and SGLang's V3.2 template write), or V3.2's own DSML
 * `<｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="K" string="…">V</｜DSML｜parameter>…`
 * (`deepseek-v32`, the default for a folder that speaks it: see `forFolder`; a V3.2 folder with no template renders
 * its prompts with the family's own renderer, render-deepseek-v32-chat.ts, as vLLM runs DeepSeek's encoder). Thinking is off unless
 * `chat_template_kwargs.thinking` (the prompt then ends with `<think>` and the reply's reasoning ends at `</think>`).
 * Its templates keep only the text after `</think>` of earlier turns and write arguments with `tojson` (V3.2's encoder:
 * as DSML parameters). The first V3 syntax, `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\nARGS\n```<｜tool▁call▁end｜>`
 * (DeepSeek-V3, V3-0324, R1-0528: `deepseek-v3`), is the default for a folder whose template writes it. DeepSeek-R1
 * always thinks: reasoning parser `deepseek-r1` (vLLM's `deepseek_r1`: the text before `</think>` is reasoning, whatever
 * the request), the default for a folder with R1's template (`isDeepSeekR1Template`). Detected from a
 * template with V3.1's tool markers or DSML, or `model_type` `deepseek_v3` / `deepseek_v32` without a template.
 *
 * @example familyByName('deepseek-v3')?.toolCalls['deepseek-v31']?.parse('Hi', []) // { toolCalls: [], content: 'Hi' }
 */
export const deepSeekV3Family: ModelFamily = {
  name: 'deepseek-v3',
  detect: ({ modelType, template }) =>
    template === ''
      ? modelType !== null && MODEL_TYPES.has(modelType)
      : (template.includes(TOOL_CALLS_BEGIN) || template.includes(DSML_CALLS_START)) && template.includes('<｜Assistant｜>'),
  reasoning: V3_REASONING,
  otherReasoning: [R1_REASONING],
  toolCalls: { 'deepseek-v31': V31_TOOL_CALLS, 'deepseek-v32': V32_TOOL_CALLS, 'deepseek-v3': V3_TOOL_CALLS },
  forFolder: (facts) => {
    // the first V3 template (its tool-call turns go back as their content alone: vLLM hands it "" for a turn's
    // missing content, never None, so the template's tool-call branch does not run; one EOS a turn all the same)
    if (facts.template.includes(V3_TOOL_SYNTAX)) {
      const toolCalls = { 'deepseek-v3': V3_TOOL_CALLS, 'deepseek-v31': V31_TOOL_CALLS, 'deepseek-v32': V32_TOOL_CALLS };
      // R1's: it always thinks, and vLLM serves it with --reasoning-parser deepseek_r1
      if (isDeepSeekR1Template(facts.template)) return { ...deepSeekV3Family, reasoning: R1_REASONING, otherReasoning: [V3_REASONING], toolCalls };
      return { ...deepSeekV3Family, toolCalls };
    }
    if (!speaksDsml(facts)) return deepSeekV3Family;
    const dsml: ModelFamily = { ...deepSeekV3Family, toolCalls: { 'deepseek-v32': V32_TOOL_CALLS, 'deepseek-v31': V31_TOOL_CALLS } };
    // no template: vLLM renders V3.2 with DeepSeek's encoder (--tokenizer-mode deepseek_v32), and so does the family
    return facts.template === '' ? { ...dsml, renderPrompt: renderDeepSeekV32Chat, rendererName: 'deepseek-v32-encoding' } : dsml;
  },
  history: { dropsReasoning: true, reserializesToolArguments: true },
};

/**
 * True when the folder is DeepSeek V3.2 speaking DSML: a template that writes `<｜DSML｜function_calls>`, or
 * `model_type` `deepseek_v32` with no template at all (DeepSeek ships V3.2 without a Jinja template: its prompts come
 * from the Python encoder `encoding_dsv32.py`, which vLLM runs for `--tokenizer-mode deepseek_v32`). A `deepseek_v32`
 * folder with a V3.1-syntax template (V3.2-Exp, SGLang's V3.2 template) keeps V3.1's parser.
 *
 * @example speaksDsml({ modelType: 'deepseek_v32', template: '' }) // true
 */
export function speaksDsml(facts: ModelFolderFacts): boolean {
  if (facts.template.includes(DSML_CALLS_START)) return true;
  return facts.template === '' && facts.modelType === 'deepseek_v32';
}

/**
 * True when a template is DeepSeek-R1's (R1, R1-0528, the R1-Distill models): it writes the first V3 tool-call syntax
 * and cuts each earlier answer at `</think>` (`content.split('</think>')[-1]`). DeepSeek-V3's and V3-0324's templates
 * write the same syntax and never name `</think>`; V3.1's names it but writes V3.1's syntax. `config.json` cannot tell
 * R1 from V3 (both `model_type` `deepseek_v3`, the same architecture).
 *
 * @example isDeepSeekR1Template("…'<｜tool▁sep｜>' + tool['function']['name']…{% if '</think>' in content %}…") // true
 */
export function isDeepSeekR1Template(template: string): boolean {
  return template.includes(V3_TOOL_SYNTAX) && template.includes(DEEPSEEK_THINK_END);
}
