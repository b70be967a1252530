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

/** What a chat request asked of the template (vLLM's names in brackets). */
export interface RenderChatOptions {
  /** end with the assistant's opening (`add_generation_prompt`, default true) */
  addGenerationPrompt?: boolean;
  /** cut after the last message so the model continues it (`continue_final_message`) */
  continueFinalMessage?: boolean;
  /** extra template variables (`chat_template_kwargs`, e.g. `{ enable_thinking: false }`) */
  templateKwargs?: Record<string, unknown>;
  /** a template sent with the request (`chat_template`), used instead of the tokenizer's */
  template?: string;
  /** Harmony only: the `Current date:` of the system message, `YYYY-MM-DD` */
  date?: string;
  /** Harmony only: the `Reasoning:` of the system message (default `medium`) */
  reasoningEffort?: 'low' | 'medium' | 'high';
}

/** One assistant reply as an OpenAI-compatible server reports it, after its reasoning and tool parsers ran. */
export interface AssistantOutput {
  reasoning: string | null;
  content: string | null;
  /** `arguments` as the server sent it (a JSON string) */
  toolCalls: Array<{ name: string; arguments: string }>;
  /** true when the turn ended by itself (finish `stop` or `tool_calls`): the end-of-turn token follows */
  endsTurn: boolean;
}

export interface ReplyContext {
  /** the rendered prompt, to see what the generation prompt already opened (e.g. `<think>\n`) */
  promptText: string;
}

/** The generated text and the special token that ended the turn; or why the reply cannot be written honestly. */
export type ReplyText =
  | { text: string; endToken: string | null }
  | { refusal: string };
