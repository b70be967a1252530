import type { RenderChatOptions } from '../../model-format/chat-template/render-chat-options.js';
import type { AssistantOutput, ReplyContext, ReplyText } from '../../model-format/reply/assistant-output.js';

// the types a retokenizer renders and writes with live in model-format/, beside the renderers that use them
export type { AssistantOutput, RenderChatOptions, ReplyContext, ReplyText };

/**
 * The tokenizer that retokenization works with: text in, ids out, plus how a conversation is rendered into a
 * prompt and how a reply is written back as the text the model generated. Used only for calls whose backend
 * returned no token ids (`tokenSource: 'none'`); see docs/retokenize.md.
 */
export interface Retokenizer {
  readonly kind: 'hf' | 'tiktoken';
  /** a readable identity, e.g. `hf:Qwen3-8B` or `tiktoken:o200k_harmony` */
  readonly name: string;
  /** `sha256:<hex>` of what decides the ids and the rendering (see docs/retokenize.md), for provenance */
  readonly hash: string;
  /** the end-of-text token a plain completion ends with, or null when the tokenizer names none */
  readonly eosToken: string | null;
  /** encodes text; special-token text in it (`<|im_end|>`, `<|start|>`) becomes the special id, as servers do */
  encode(text: string): Int32Array;
  /** encodes a completions-endpoint prompt the way the server does: with the tokenizer's own BOS/EOS frame */
  encodePrompt(text: string): Int32Array;
  /** decodes ids; special tokens are kept as text */
  decode(ids: ArrayLike<number>): string;
  /** renders OpenAI chat messages and tools into prompt text; absent for plain encodings (cl100k_base, o200k_base) */
  renderChat?(messages: readonly unknown[], tools: readonly unknown[] | null, options?: RenderChatOptions): string;
  /** writes a parsed assistant reply back as the text the model generated; absent where the format is unknown */
  writeReply?(output: AssistantOutput, context: ReplyContext): ReplyText;
}
