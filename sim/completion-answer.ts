import { characterCount, completionLogprobs, type LogprobFormatting } from './format-logprobs.js';
import type { Generation } from './generate-completion.js';
import { setTokenIds, usageInfo } from './response-fields.js';
import { streamGroups } from './stream-groups.js';
import type { StreamEvent } from './write-response.js';

/** Everything a `/v1/completions` answer is built from. */
export interface CompletionAnswer {
  requestId: string;
  created: number;
  model: string;
  promptTokenIds: readonly number[];
  generation: Generation;
  /** set when the request asked `logprobs: k` */
  logprobs: LogprobFormatting | null;
  returnTokenIds: boolean;
  unrequestedTokenIds: 'null' | 'absent';
  wrongTokenIds: boolean;
  includeUsage: boolean;
  continuousUsage: boolean;
  /** tokens per streamed chunk after the first (vLLM's `--stream-interval`, see streamGroups) */
  streamInterval: number;
}

/**
 * A non-streamed `text_completion` body as vLLM's `CompletionResponse` dumps it: `token_ids`,
 * `prompt_logprobs` and `prompt_token_ids` sit inside the choice, not at the top level.
 *
 * @example
 * JSON.stringify(completionResponseBody(answer));
 */
export function completionResponseBody(answer: CompletionAnswer): Record<string, unknown> {
  const { plan, text } = answer.generation;
  const ids = plan.tokenIds;
  const choice: Record<string, unknown> = {
    index: 0,
    text,
    logprobs: answer.logprobs === null ? null : completionLogprobs(answer.logprobs, ids, 0, 0),
    finish_reason: plan.finishReason,
    stop_reason: plan.stopReason,
  };
  const tokenOptions = { requested: answer.returnTokenIds, unrequested: answer.unrequestedTokenIds };
  setTokenIds(choice, 'token_ids', answer.wrongTokenIds ? [ids[0] ?? 0, ...ids] : ids, tokenOptions);
  choice.prompt_logprobs = null;
  setTokenIds(choice, 'prompt_token_ids', answer.promptTokenIds, tokenOptions);
  choice.routed_experts = null;
  return {
    id: answer.requestId,
    object: 'text_completion',
    created: answer.created,
    model: answer.model,
    choices: [choice],
    service_tier: null,
    system_fingerprint: null,
    usage: usageInfo(answer.promptTokenIds.length, ids.length, { withDetails: true }),
    kv_transfer_params: null,
  };
}

/**
 * The chunks of a streamed completion as vLLM's `completion_stream_generator` sends them: one per token (or per
 * stream-interval group of tokens), every field it sets explicitly present (`finish_reason`/`stop_reason` null until
 * the end, `prompt_token_ids` on the first chunk only), then the usage chunk and `[DONE]`.
 *
 * @example
 * await writeEventStream(exchange, completionStreamEvents(answer), options);
 */
export function* completionStreamEvents(answer: CompletionAnswer): Generator<StreamEvent> {
  const { plan } = answer.generation;
  const tokenOptions = { requested: answer.returnTokenIds, unrequested: answer.unrequestedTokenIds };
  let textOffset = 0;
  const count = plan.tokenIds.length;
  for (const group of streamGroups(count, answer.streamInterval)) {
    const ids = plan.tokenIds.slice(group.start, group.end);
    const text = plan.tokenTexts.slice(group.start, group.end).join('');
    const last = group.end === count;
    const choice: Record<string, unknown> = {
      index: 0,
      text,
      logprobs: answer.logprobs === null ? null : completionLogprobs(answer.logprobs, ids, group.start, textOffset),
      finish_reason: last ? plan.finishReason : null,
      stop_reason: last ? plan.stopReason : null,
    };
    setTokenIds(choice, 'prompt_token_ids', group.start === 0 ? answer.promptTokenIds : null, tokenOptions);
    setTokenIds(choice, 'token_ids', answer.wrongTokenIds && group.start === 0 ? [ids[0] ?? 0, ...ids] : ids, tokenOptions);
    textOffset += characterCount(text);
    const chunk: Record<string, unknown> = {
      id: answer.requestId,
      object: 'text_completion',
      created: answer.created,
      model: answer.model,
      choices: [choice],
    };
    if (answer.continuousUsage) chunk.usage = usageInfo(answer.promptTokenIds.length, group.end, { withDetails: false });
    yield { data: JSON.stringify(chunk), tokens: group.end - group.start };
  }
  if (answer.includeUsage) {
    const usage = usageInfo(answer.promptTokenIds.length, plan.tokenIds.length, { withDetails: false });
    const chunk = { id: answer.requestId, object: 'text_completion', created: answer.created, model: answer.model, choices: [], usage };
    yield { data: JSON.stringify(chunk), tokens: 0 };
  }
  yield { data: '[DONE]', tokens: 0 };
}
