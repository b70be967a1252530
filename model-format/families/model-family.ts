import type { DeltaToolCall } from './qwen3/create-hermes-tool-call-stream.js';
import type { ParsedToolCall } from './qwen3/parse-hermes-tool-calls.js';
import type { RenderChatOptions } from '../chat-template/render-chat-options.js';

/** What of the request a reasoning parser may read (vLLM's DeepSeek V3 parser reads `chat_template_kwargs.thinking`). */
export interface ReasoningRequest {
  chatTemplateKwargs: Record<string, unknown> | null;
}

/** Reasoning split from completion text, whole and streamed (vLLM's `--reasoning-parser` for the family). */
export interface FamilyReasoningParser {
  /** the name `--reasoning-parser` takes for it (vLLM's: `qwen3`) */
  name: string;
  split(text: string, request?: ReasoningRequest): { reasoning: string | null; content: string | null };
  createStream(request?: ReasoningRequest): { push(deltaText: string): { reasoning?: string; content?: string } | null };
}

/** Tool calls read from completion text, whole and streamed; the stream is fed the whole content so far (vLLM's `--tool-call-parser`). */
export interface FamilyToolCallParser {
  parse(content: string, tools: readonly unknown[]): { toolCalls: ParsedToolCall[]; content: string | null };
  createStream(tools: readonly unknown[]): { push(currentText: string): { content?: string; toolCalls?: DeltaToolCall[] } | null };
}

/** What a model folder says about itself, for picking its family. */
export interface ModelFolderFacts {
  /** `config.json`'s `model_type` (`qwen3`, `llama`, `deepseek_v3`, `gpt_oss`, ...), null without one */
  modelType: string | null;
  /** the chat template text ('' without one) */
  template: string;
  /**
   * the tokenizer's added tokens (`tokenizer.json`'s `added_tokens`, `tokenizer_config.json`'s `added_tokens_decoder`),
   * where control tokens live: Mistral's `[ARGS]` marks a tokenizer of v11 or later. Unset when the folder has neither
   */
  addedTokens?: readonly string[];
}

/**
 * One model family (docs/model-families.md): how its output text is read back into an assistant message, and what
 * its chat template does to history, so token-faithful mode knows what it may keep. The prompt itself is rendered
 * by the model's own chat template (model-format/chat-template) from the user's `--model-dir`.
 */
export interface ModelFamily {
  /** the name `--model-family` takes (`qwen3`, `llama3`, `deepseek-v3`, ...) */
  name: string;
  /** true when a model folder is this family's (its `model_type`, or markers of its template) */
  detect(facts: ModelFolderFacts): boolean;
  /** null: the family's output has no reasoning part */
  reasoning: FamilyReasoningParser | null;
  /** the family's other reasoning parsers, which `--reasoning-parser` may name (DeepSeek: `deepseek-r1` beside `deepseek-v3`) */
  otherReasoning?: readonly FamilyReasoningParser[];
  /** tool-call parsers by name, the first the default (Qwen3: `hermes`, `qwen3-coder`) */
  toolCalls: Readonly<Record<string, FamilyToolCallParser>>;
  /**
   * the family as one model folder shapes it, where models of the family differ (DeepSeek V3.2 speaking DSML: its
   * `deepseek-v32` tool parser first; Qwen3.5: thinking on or off by its template's default); applied whenever there
   * is a `--model-dir`. Unset: the same for every folder
   */
  forFolder?: (facts: ModelFolderFacts) => ModelFamily;
  /**
   * the family's own prompt renderer, used instead of the model folder's chat template: vLLM renders gpt-oss with
   * openai_harmony, DeepSeek V3.2 with its Python encoder, not with a template (a function of the messages, the tools
   * and the template options: `templateKwargs` are the request's `chat_template_kwargs`)
   */
  renderPrompt?: (messages: readonly unknown[], tools: readonly unknown[] | null, options: RenderChatOptions) => string;
  /** the name /healthz shows for `renderPrompt` when it renders a model folder's prompts (`tokenFaithful.family.renderer`) */
  rendererName?: string;
  /** the output is read with its special tokens (Harmony's `<|channel|>`, ...): completions ask `skip_special_tokens: false` */
  keepsSpecialTokens?: boolean;
  /** what re-rendering an earlier turn changes, so a turn is extended from its ids, never re-rendered */
  history: {
    /** earlier assistant turns lose their reasoning */
    dropsReasoning: boolean;
    /** tool-call arguments are rendered from parsed JSON, not the text the model wrote */
    reserializesToolArguments: boolean;
    /**
     * the tokens that end an assistant turn where the template may write one for another (Llama 3: `<|eot_id|>`,
     * `<|eom_id|>`; gpt-oss: Harmony writes a sampled `<|return|>` back as `<|end|>`, which ends every message): a turn
     * the model ended with any of them is found in the rendering by counting them all, and is extended from its ids
     * (the sampled one kept). The turn so found must render alike with and without the new messages, else the call is
     * rendered fresh (prompt-renderer.ts `closesSameTurn`). Unset: the sampled end-of-turn token alone
     */
    endOfTurnTokens?: readonly string[];
    /**
     * the role tokens that open a message, where the model ends its turn with the next one's and the template writes
     * nothing after a turn (GLM-4.5: the model stops at `<|observation|>` or `<|user|>`, which the template writes as
     * the tool results' or the next user message's opening): a turn the model ended with one of them ends at the first
     * of them after it (found by counting them all before it), and is extended from its ids, the sampled one kept
     */
    nextRoleTokens?: readonly string[];
  };
}
