import { Template } from '@huggingface/jinja';
import type { HfTokenizer } from '../tokenizer/load-hf-tokenizer.js';

export interface RenderChatTemplateOptions {
  /** the Jinja source, usually `tokenizer.chatTemplate` */
  template: string;
  /** messages already normalized the way the server hands them to the template */
  messages: ReadonlyArray<Record<string, unknown>>;
  /** tool definitions, `{type: 'function', function: {...}}` each; omitted or empty means no tools */
  tools?: ReadonlyArray<Record<string, unknown>> | null;
  addGenerationPrompt?: boolean;
  /** cut the text right after the last message's content, so the model continues it (HF `continue_final_message`) */
  continueFinalMessage?: boolean;
  /** `chat_template_kwargs`, e.g. `{ enable_thinking: false }` for Qwen3 */
  extraContext?: Record<string, unknown>;
  /** special tokens the template may print (`bos_token`, `eos_token`, ...) */
  specialTokens?: Record<string, unknown>;
}

const compiled = new Map<string, Template>();

/**
 * Renders a Hugging Face chat template with `@huggingface/jinja`, giving it the same variables as
 * `transformers`' `apply_chat_template`: `messages`, `tools`, `add_generation_prompt`, the special tokens and
 * any extra kwargs. Compiled templates are cached by source.
 *
 * @example
 * const text = renderChatTemplate({ template: tokenizer.chatTemplate!, messages, addGenerationPrompt: true,
 *   specialTokens: chatTemplateSpecialTokens(tokenizer) });
 */
export function renderChatTemplate(options: RenderChatTemplateOptions): string {
  let template = compiled.get(options.template);
  if (template === undefined) {
    template = new Template(options.template);
    compiled.set(options.template, template);
  }
  const tools = options.tools !== undefined && options.tools !== null && options.tools.length > 0 ? options.tools : undefined;
  const context: Record<string, unknown> = {
    ...options.specialTokens,
    ...options.extraContext,
    messages: options.messages,
    add_generation_prompt: options.addGenerationPrompt ?? false,
  };
  // transformers passes tools=None when absent; an undefined variable keeps `{% if tools %}` false the same way
  if (tools !== undefined) context.tools = tools;
  const rendered = template.render(context);
  return options.continueFinalMessage === true ? cutAfterFinalMessage(rendered, options.messages) : rendered;
}

/**
 * The special-token variables `transformers` exposes to chat templates (its `special_tokens_map`).
 *
 * @example
 * chatTemplateSpecialTokens(tokenizer); // { bos_token: '', eos_token: '<|im_end|>', ... }
 */
export function chatTemplateSpecialTokens(tokenizer: HfTokenizer): Record<string, unknown> {
  const tokens: Record<string, unknown> = {};
  for (const name of ['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const) {
    const value = tokenizer.config[name];
    const content = typeof value === 'string' ? value : value !== null && typeof value === 'object' ? value.content : undefined;
    if (content !== undefined) tokens[name] = content;
  }
  if (Array.isArray(tokenizer.config.additional_special_tokens)) {
    tokens.additional_special_tokens = tokenizer.config.additional_special_tokens;
  }
  return tokens;
}

/**
 * transformers' `continue_final_message`: keep the text up to the end of the last message's content, so the
 * end-of-turn tokens after it are dropped.
 */
function cutAfterFinalMessage(rendered: string, messages: ReadonlyArray<Record<string, unknown>>): string {
  const finalMessage = messages.at(-1);
  const content = typeof finalMessage?.content === 'string' ? finalMessage.content : '';
  if (content === '') return rendered;
  const position = rendered.lastIndexOf(content.trim());
  if (position === -1) throw new Error('continue_final_message: the final message is not in the rendered template');
  const full = rendered.lastIndexOf(content);
  return full !== -1 ? rendered.slice(0, full + content.length) : rendered.slice(0, position + content.trim().length);
}
