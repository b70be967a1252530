import { streamGroups } from '../stream-groups.js';
import type { StreamEvent } from '../write-response.js';
import type { SglangGeneration } from './sglang-generation.js';
import type { SglangLogprobSource } from './sglang-logprobs.js';
import { completionLogprobs } from './sglang-openai-logprobs.js';

/** Everything an SGLang `/v1/completions` answer is built from. */
export interface SglangCompletionAnswer {
  id: string;
  created: number;
  model: string;
  promptTokenIds: readonly number[];
  result: SglangGeneration;
  weightVersion: string;
  logprobs: SglangLogprobSource | null;
  returnTokenIds: boolean;
  includeUsage: boolean;
  streamInterval: number;
}

/**
 * A non-streamed `text_completion` (protocol.py `CompletionResponse`): the choice `{index, text, logprobs,
 * finish_reason, matched_stop}`, then `token_ids` and `prompt_token_ids` when `return_token_ids` (PR #30917; absent
 * otherwise), usage with `reasoning_tokens`, and `metadata: {weight_version}`.
 *
 * @example
 * JSON.stringify(sglangCompletionBody(answer));
 */
export function sglangCompletionBody(answer: SglangCompletionAnswer): Record<string, unknown> {
  const { result } = answer;
  const choice = choiceHead(answer, result.text, answer.logprobs === null ? null : completionLogprobs(answer.logprobs, result.outputIds, 0), true);
  if (answer.returnTokenIds) {
    choice.token_ids = result.outputIds;
    choice.prompt_token_ids = answer.promptTokenIds;
  }
  return {
    id: answer.id,
    object: 'text_completion',
    created: answer.created,
    model: answer.model,
    choices: [choice],
    usage: { ...usage(answer), prompt_tokens_details: null, reasoning_tokens: 0 },
    metadata: { weight_version: answer.weightVersion },
  };
}

/**
 * The chunks of a streamed completion (serving_completions.py): one per stream group, each `CompletionStreamResponse`
 * dumped whole (`usage: null`), its text the part the group adds (possibly ""), the last one carrying `finish_reason`
 * and `matched_stop`; with `return_token_ids` each chunk's `token_ids` are the ids of that chunk and the first chunk
 * also has `prompt_token_ids`. Then the usage chunk (`include_usage`, dumped without nulls) and `[DONE]`.
 *
 * @example
 * await writeEventStream(exchange, sglangCompletionStreamEvents(answer), options);
 */
export function* sglangCompletionStreamEvents(answer: SglangCompletionAnswer): Generator<StreamEvent> {
  const { result } = answer;
  const count = result.outputIds.length;
  for (const group of streamGroups(count, answer.streamInterval)) {
    const ids = result.outputIds.slice(group.start, group.end);
    const last = group.end === count;
    const logprobs = answer.logprobs === null ? null : completionLogprobs(answer.logprobs, ids, group.start);
    const choice = choiceHead(answer, result.tokenTexts.slice(group.start, group.end).join(''), logprobs, last);
    if (answer.returnTokenIds) {
      choice.token_ids = ids;
      if (group.start === 0) choice.prompt_token_ids = answer.promptTokenIds;
    }
    const chunk = { id: answer.id, object: 'text_completion', created: answer.created, model: answer.model, choices: [choice], usage: null };
    yield { data: JSON.stringify(chunk), tokens: group.end - group.start };
  }
  if (answer.includeUsage) {
    const chunk = {
      id: answer.id,
      object: 'text_completion',
      created: answer.created,
      model: answer.model,
      choices: [],
      usage: { ...usage(answer), reasoning_tokens: 0 },
    };
    yield { data: JSON.stringify(chunk), tokens: 0 };
  }
  yield { data: '[DONE]', tokens: 0 };
}

function choiceHead(answer: SglangCompletionAnswer, text: string, logprobs: unknown, finished: boolean): Record<string, unknown> {
  const finish = answer.result.finishReason;
  return {
    index: 0,
    text,
    logprobs,
    finish_reason: finished ? finish.type : null,
    matched_stop: finished && finish.type === 'stop' ? finish.matched : null,
  };
}

function usage(answer: SglangCompletionAnswer): { prompt_tokens: number; total_tokens: number; completion_tokens: number } {
  const promptTokens = answer.promptTokenIds.length;
  const completionTokens = answer.result.outputIds.length;
  return { prompt_tokens: promptTokens, total_tokens: promptTokens + completionTokens, completion_tokens: completionTokens };
}
