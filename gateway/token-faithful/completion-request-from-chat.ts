import { isRecord } from '../../core/json/is-record.js';

/**
 * Chat fields that only the chat endpoint understands: they decide the prompt (which the gateway now renders)
 * or its parsing (which the gateway now owns), or they are re-expressed below in completions terms.
 */
const CHAT_ONLY_FIELDS = [
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'chat_template',
  'chat_template_kwargs',
  'add_generation_prompt',
  'continue_final_message',
  'documents',
  'reasoning_effort',
  'include_reasoning',
  'thinking_token_budget',
  'max_completion_tokens',
  'logprobs',
  'top_logprobs',
  'return_token_ids',
  'stream_options',
  'add_special_tokens',
  'mm_processor_kwargs',
  'media_io_kwargs',
  'echo',
] as const;

/**
 * The `/v1/completions` body for a token-faithful call: the prompt as token ids (vLLM then skips its template and
 * parsers), every sampling field of the chat body as it was, `max_tokens` from either chat name (null: the rest
 * of the context, which is what chat means when both are absent; completions would default to 16),
 * `return_token_ids`, legacy `logprobs: k` (k >= 1, so the sampled token's logprob is always there) and, for
 * streams, usage. `keepSpecialTokens` (a family whose output is read with them: Harmony's `<|channel|>`) asks
 * `skip_special_tokens: false`.
 *
 * @example completionRequestFromChat(chatBody, [151644, 872, 198]).prompt // [151644, 872, 198]
 */
export function completionRequestFromChat(
  chatBody: Record<string, unknown>,
  promptIds: readonly number[],
  options: { keepSpecialTokens?: boolean } = {},
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...chatBody };
  for (const field of CHAT_ONLY_FIELDS) delete body[field];
  body.prompt = [...promptIds];
  body.max_tokens = numberOrNull(chatBody.max_tokens) ?? numberOrNull(chatBody.max_completion_tokens);
  body.return_token_ids = true;
  if (options.keepSpecialTokens === true) body.skip_special_tokens = false;
  body.logprobs = Math.max(1, numberOrNull(chatBody.top_logprobs) ?? 0);
  if (chatBody.stream === true) {
    const streamOptions = isRecord(chatBody.stream_options) ? chatBody.stream_options : {};
    body.stream_options = { ...streamOptions, include_usage: true };
  }
  return body;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}
