import type { ChatMessageFields } from './chat-message-fields.js';
import { chatLogprobsContent, type LogprobFormatting } from './format-logprobs.js';
import type { Generation } from './generate-completion.js';
import { setReasoning, setTokenIds, usageInfo } from './response-fields.js';
import type { ReasoningField } from './sim-options.js';

/** Everything a chat answer is built from; shared by the body and the stream. */
export interface ChatAnswer {
  requestId: string;
  created: number;
  model: string;
  promptTokenIds: readonly number[];
  generation: Generation;
  /** the message's fields, laid out from the reply's structure as vLLM's parsers would report them */
  output: ChatMessageFields;
  finishReason: 'stop' | 'length' | 'tool_calls';
  /** set when the request asked `logprobs: true` */
  logprobs: LogprobFormatting | null;
  returnTokenIds: boolean;
  reasoningField: ReasoningField;
  unrequestedTokenIds: 'null' | 'absent';
  /** fault `wrong-token-ids`: the first completion id is reported twice */
  wrongTokenIds: boolean;
}

/**
 * A non-streamed `chat.completion` body as vLLM's `ChatCompletionResponse.model_dump()` lays it out (every
 * field present, nulls included; key order as the pydantic models declare them).
 *
 * @example
 * JSON.stringify(chatResponseBody(answer)); // '{"id":"chatcmpl-…","object":"chat.completion",…}'
 */
export function chatResponseBody(answer: ChatAnswer): Record<string, unknown> {
  const { plan } = answer.generation;
  const completionIds = plan.tokenIds;
  const choice: Record<string, unknown> = {
    index: 0,
    message: chatMessage(answer),
    logprobs: answer.logprobs === null ? null : { content: chatLogprobsContent(answer.logprobs, completionIds, 0) },
    finish_reason: answer.finishReason,
    stop_reason: plan.stopReason,
  };
  const reportedIds = answer.wrongTokenIds ? [completionIds[0] ?? 0, ...completionIds] : completionIds;
  setTokenIds(choice, 'token_ids', reportedIds, { requested: answer.returnTokenIds, unrequested: answer.unrequestedTokenIds });
  const body: Record<string, unknown> = {
    id: answer.requestId,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: [choice],
    service_tier: null,
    system_fingerprint: null,
    usage: usageInfo(answer.promptTokenIds.length, completionIds.length, { withDetails: true }),
    prompt_logprobs: null,
  };
  setTokenIds(body, 'prompt_token_ids', answer.promptTokenIds, { requested: answer.returnTokenIds, unrequested: answer.unrequestedTokenIds });
  body.kv_transfer_params = null;
  return body;
}

function chatMessage(answer: ChatAnswer): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.output.content,
    refusal: null,
    annotations: null,
    audio: null,
    function_call: null,
    tool_calls: answer.output.toolCalls,
  };
  setReasoning(message, answer.reasoningField, answer.output.reasoning);
  return message;
}
