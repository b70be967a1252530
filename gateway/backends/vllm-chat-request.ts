import { isRecord } from '../../core/json/is-record.js';
import { applyThinkingSwitch, enableThinkingFor } from './thinking-switch.js';

/**
 * What the harness asked for itself, so tokentap can strip exactly what it injected and nothing else.
 */
export interface HarnessAsked {
  /** the harness sent `return_token_ids: true` */
  tokenIds: boolean;
  /** the harness sent `logprobs: true` */
  logprobs: boolean;
  /** the harness's `top_logprobs`, 0 when not asked */
  topLogprobs: number;
  /** streaming only: the harness sent `stream_options.include_usage: true` */
  streamUsage: boolean;
}

export interface PrepareChatRequestOptions {
  /** replaces the harness's model name (`--model`) */
  model?: string | undefined;
  /** `top_logprobs` to record on every call (0: none) */
  topLogprobs: number;
}

export interface PreparedChatRequest {
  backendBody: Record<string, unknown>;
  asked: HarnessAsked;
}

/**
 * Builds the body for vLLM's /v1/chat/completions from the harness's body: every field is kept as sent
 * (never rebuilt from a parameter list); tokentap only adds what it records: `return_token_ids`, `logprobs`,
 * `top_logprobs` (when configured) and, for streams, usage (to check the joined ids against).
 *
 * @example
 * const { backendBody, asked } = prepareChatRequest(request.body, { topLogprobs: 0 });
 */
export function prepareChatRequest(body: Record<string, unknown>, options: PrepareChatRequestOptions): PreparedChatRequest {
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : undefined;
  const asked: HarnessAsked = {
    tokenIds: body.return_token_ids === true,
    logprobs: body.logprobs === true,
    topLogprobs: body.logprobs === true && typeof body.top_logprobs === 'number' ? body.top_logprobs : 0,
    streamUsage: streamOptions?.include_usage === true,
  };
  const backendBody: Record<string, unknown> = { ...body, return_token_ids: true, logprobs: true };
  if (options.model !== undefined) backendBody.model = options.model;
  const topLogprobs = Math.max(asked.topLogprobs, options.topLogprobs);
  if (topLogprobs > 0) backendBody.top_logprobs = topLogprobs;
  else delete backendBody.top_logprobs;
  if (body.stream === true) backendBody.stream_options = { ...streamOptions, include_usage: true };
  applyThinkingSwitch(backendBody, enableThinkingFor({ protocol: 'chat', reasoningEffort: body.reasoning_effort }));
  return { backendBody, asked };
}

/** Sampling parameters recorded per call (what the backend was asked to sample with). */
const SAMPLING_KEYS = [
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'max_tokens',
  'max_completion_tokens',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'repetition_penalty',
  'stop',
  'stop_token_ids',
  'n',
  'logit_bias',
  'min_tokens',
  'ignore_eos',
  'reasoning_effort',
  'chat_template_kwargs',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
] as const;

/** @example pickSamplingParams({ temperature: 0.7, messages: [] }) // { temperature: 0.7 } */
export function pickSamplingParams(body: Record<string, unknown>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const key of SAMPLING_KEYS) if (body[key] !== undefined) params[key] = body[key];
  return params;
}
