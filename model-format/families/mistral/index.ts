import type { FamilyReasoningParser, FamilyToolCallParser, ModelFamily, ModelFolderFacts } from '../model-family.js';
import { createMistralToolCallStream, parseMistralToolCalls, TOOL_CALLS } from './parse-mistral-tool-calls.js';
import { ARGS, createMistralV11ToolCallStream, parseMistralV11ToolCalls } from './parse-mistral-v11-tool-calls.js';
import { BEGIN_THINK, createMistralReasoningStream, splitMistralReasoning } from './split-mistral-reasoning.js';

const PRE_V11_TOOL_CALLS: FamilyToolCallParser = {
  parse: (content) => parseMistralToolCalls(content),
  createStream: () => createMistralToolCallStream(),
};
const V11_TOOL_CALLS: FamilyToolCallParser = {
  parse: (content) => parseMistralV11ToolCalls(content),
  createStream: () => createMistralV11ToolCallStream(),
};
const REASONING: FamilyReasoningParser = {
  name: 'mistral',
  split: (text) => splitMistralReasoning(text),
  createStream: () => createMistralReasoningStream(),
};

/**
 * Mistral (vLLM's `mistral` tool parser), in the two syntaxes its tokenizers write: before v11
 * `content[TOOL_CALLS] [{"name": …, "arguments": {…}}, …]` (parser `mistral`, parallel calls in the one list), v11 and
 * later `content[TOOL_CALLS]NAME[ARGS]{…}`, one marker per call (parser `mistral-v11`). vLLM picks between them by the
 * tokenizer (a Hugging Face one is v11+ when `[ARGS]` is in its vocabulary), and so does this family from the model folder
 * (`forFolder`: `[ARGS]` among the tokenizer's added tokens or in the chat template makes `mistral-v11` the default). Ids are nine letters and digits. `[TOOL_CALLS]` is
 * a special token, so the output is read with special tokens (vLLM asks `skip_special_tokens: false` for a Mistral model
 * served with its chat template). Its templates (vLLM's examples/tool_chat_template_mistral.jinja and
 * tool_chat_template_mistral3.jinja) write a turn with calls as the calls only (its text dropped), from `tojson` and with
 * each call's id added, so turns are extended from their ids. Detected from a template with `[TOOL_CALLS]` and
 * `[AVAILABLE_TOOLS]`, or `model_type` `mistral` without a template. Tokenizers v13 and later (Magistral) think in
 * `[THINK]…[/THINK]` before the answer, read by vLLM's `mistral` reasoning parser (split-mistral-reasoning.ts): on for a
 * folder whose tokenizer or template has `[THINK]`, none for other folders (vLLM refuses the parser for a tokenizer
 * without those tokens), on without a folder (text without the tags is all content). Magistral's published templates
 * write an earlier turn's content only (its `reasoning_content` dropped), so turns are extended from their ids.
 *
 * @example familyByName('mistral')?.toolCalls.mistral?.parse('Hi', []) // { toolCalls: [], content: 'Hi' }
 */
export const mistralFamily: ModelFamily = {
  name: 'mistral',
  detect: ({ modelType, template }) =>
    template === '' ? modelType === 'mistral' : template.includes(TOOL_CALLS) && template.includes('[AVAILABLE_TOOLS]'),
  reasoning: REASONING,
  toolCalls: { mistral: PRE_V11_TOOL_CALLS, 'mistral-v11': V11_TOOL_CALLS },
  // a v11+ folder reads mistral-v11 by default, as vLLM's one `mistral` parser does for such a tokenizer; a v13+ one
  // (with [THINK]) reads reasoning
  forFolder: (facts) => ({
    ...mistralFamily,
    reasoning: isMistralThinkFolder(facts) ? REASONING : null,
    toolCalls: isMistralV11Folder(facts) ? { 'mistral-v11': V11_TOOL_CALLS, mistral: PRE_V11_TOOL_CALLS } : mistralFamily.toolCalls,
  }),
  keepsSpecialTokens: true,
  history: { dropsReasoning: true, reserializesToolArguments: true },
};

/**
 * True when a Mistral model folder's tokenizer is v11 or later: `[ARGS]` is one of its tokens (vLLM's
 * `_is_pre_v11_tokeniser` for a Hugging Face tokenizer) or its chat template writes it.
 *
 * @example isMistralV11Folder({ modelType: 'mistral', template: '', addedTokens: ['[TOOL_CALLS]', '[ARGS]'] }) // true
 */
export function isMistralV11Folder(facts: { template: string; addedTokens?: readonly string[] }): boolean {
  return (facts.addedTokens ?? []).includes(ARGS) || facts.template.includes(ARGS);
}

/**
 * True when a Mistral model folder's tokenizer thinks in `[THINK]…[/THINK]` (mistral_common's v13 and later): `[THINK]`
 * is one of its tokens or its chat template writes it (Magistral's default system prompt shows the model the tags).
 *
 * @example isMistralThinkFolder({ modelType: 'mistral', template: '', addedTokens: ['[ARGS]', '[THINK]', '[/THINK]'] }) // true
 */
export function isMistralThinkFolder(facts: Pick<ModelFolderFacts, 'template' | 'addedTokens'>): boolean {
  return (facts.addedTokens ?? []).includes(BEGIN_THINK) || facts.template.includes(BEGIN_THINK);
}
