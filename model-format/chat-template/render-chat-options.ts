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
