/** Retokenization: token ids rebuilt from stored text for calls whose backend returned none (docs/retokenize.md). */
export { createRetokenizer, type RetokenizerOptions } from './create-retokenizer.js';
export { createHfRetokenizer } from './create-hf-retokenizer.js';
export { createTiktokenRetokenizer, type TiktokenEncodingName } from './create-tiktoken-retokenizer.js';
export { retokenizeCall, tryRetokenizeCall, type RetokenizedCall, type RetokenizeRefusal, type RetokenizeRefusalReason } from './retokenize-call.js';
export { o200kHarmonySpecialTokens, HARMONY_SPECIAL_TOKENS } from '../../model-format/families/gpt-oss/o200k-harmony.js';
export { renderHarmonyChat } from '../../model-format/families/gpt-oss/render-harmony-chat.js';
export type { AssistantOutput, RenderChatOptions, ReplyContext, ReplyText, Retokenizer } from './retokenizer.js';
