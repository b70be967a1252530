import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { chatFacts, chatSettings, renderChatPrompt } from '../chat-prompt.js';
import { checkChatReply } from '../check-chat-reply.js';
import { chatRequestSchema, type ChatRequest } from '../read-generation-request.js';
import { bodyBytes, fastPromptIds, seedHash } from '../request-basics.js';
import { respondWithGeneration, runWithRecord } from '../respond.js';
import { seededPolicyReply } from '../seeded-policy.js';
import { createSeededRandom, hashNumbers } from '../seeded-random.js';
import type { SimContext } from '../sim-context.js';
import type { SimGenerationRecord } from '../sim-generation-record.js';
import { VllmError } from '../vllm-error.js';
import { checkContextLength, checkSingleChoice, readSglangBody, sglangRequestId } from './generate-request.js';
import { sglangChatBody, sglangChatStreamEvents } from './sglang-chat-answer.js';
import { sglangBadRequest } from './sglang-error-handler.js';
import { sglangMessageFields } from './sglang-message-fields.js';
import { reasoningTokenCount, runSglangGeneration, sglangLogprobSource, sglangStopSettings } from './sglang-generation.js';

// pydantic BaseModel's default `extra="ignore"`: fields SGLang does not know (vLLM's `request_id`, `add_generation_prompt`, ...) are dropped
const sglangChatSchema = chatRequestSchema.extend({
  return_prompt_token_ids: z.boolean().nullish(),
  input_ids: z.array(z.number().int().min(0)).nullish(),
  rid: z.string().nullish(),
  no_stop_trim: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
});
type SglangChatRequest = z.output<typeof sglangChatSchema>;

/**
 * SGLang's `POST /v1/chat/completions`, as a server started with `--reasoning-parser qwen3 --tool-call-parser qwen25`
 * answers it (see sglang-chat-answer.ts). `return_token_ids` works on non-streamed requests only: a streamed one is
 * refused with SGLang's 400 before anything is generated (serving_chat.py `_convert_to_internal_request`).
 *
 * @example
 * registerSglangChat(app, context);
 */
export function registerSglangChat(app: FastifyInstance, context: SimContext): void {
  app.post('/v1/chat/completions', (request, reply) =>
    runWithRecord(context, request, 'chat', (record) => chat(context, request, reply, record), sglangRequestId(request.body)).then(() => reply),
  );
}

async function chat(context: SimContext, request: FastifyRequest, reply: FastifyReply, record: SimGenerationRecord): Promise<void> {
  const body = readSglangChatRequest(request.body);
  // add_generation_prompt is not an SGLang field: the template always opens the assistant turn
  const templated: ChatRequest = { ...body, add_generation_prompt: true };
  const settings = chatSettings(templated);
  if (body.input_ids !== undefined && body.input_ids !== null) record.promptTokenIds = body.input_ids;
  else if (context.fast) record.promptTokenIds = fastPromptIds(bodyBytes(request));
  else {
    const prompt = renderChatPrompt(await context.tokenizer(), templated, settings);
    [record.promptTokenIds, record.promptText] = [prompt.tokenIds, prompt.text];
  }
  const promptTokens = record.promptTokenIds.length;
  const maxNewTokens = body.max_completion_tokens ?? body.max_tokens ?? context.maxModelLen - promptTokens;
  checkContextLength(context.maxModelLen, promptTokens, maxNewTokens);
  const hash = seedHash(context, request, record.promptTokenIds);
  const random = createSeededRandom(hashNumbers([context.seed, hash]));
  const facts = chatFacts(templated, settings);
  const result = await runSglangGeneration(
    context,
    record,
    reply,
    facts,
    {
      thinking: settings.thinking,
      maxNewTokens,
      ...sglangStopSettings(body, hash),
      checkReply: checkChatReply,
    },
    () => seededPolicyReply({ random, thinking: settings.thinking, tools: settings.tools, toolChoice: body.tool_choice }),
  );
  if (result === null) return;
  const streamOptions = body.stream_options ?? null;
  const answer = {
    id: record.requestId,
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'default',
    promptTokenIds: record.promptTokenIds,
    result,
    parseToolCalls: settings.parseToolCalls,
    reasoningTokens: reasoningTokenCount(result, true),
    weightVersion: context.weightVersion,
    logprobs:
      body.logprobs === true
        ? sglangLogprobSource(context, record, result, hash, { logprobStartLen: -1, topLogprobsNum: body.top_logprobs ?? 0, returnText: true })
        : null,
    returnTokenIds: body.return_token_ids === true,
    includeUsage: streamOptions?.include_usage === true,
    continuousUsage: streamOptions?.include_usage === true && streamOptions.continuous_usage_stats === true,
    streamInterval: context.streamInterval,
  };
  const fields = sglangMessageFields(result.generation.layout, result.text.length, settings.parseToolCalls);
  if (fields.toolCalls !== null && result.finishReason.type === 'stop') record.finishReason = 'tool_calls';
  [record.reasoning, record.content] = [fields.reasoningContent, fields.content];
  record.toolCalls = (fields.toolCalls ?? []).map((call) => ({ ...call.function }));
  await respondWithGeneration(context, record, reply, result.fault, result.generation, {
    stream: body.stream === true,
    body: () => sglangChatBody(answer),
    events: () => sglangChatStreamEvents(answer),
  });
}

function readSglangChatRequest(raw: unknown): SglangChatRequest {
  const body = readSglangBody(sglangChatSchema, raw);
  if (body.stream === true) {
    if (body.return_prompt_token_ids === true) {
      throw sglangBadRequest(
        'return_prompt_token_ids is not supported with streaming. Please set stream=false when using return_prompt_token_ids=true.',
      );
    }
    if (body.return_token_ids === true) {
      throw sglangBadRequest(
        'return_token_ids is not supported with streaming on /v1/chat/completions. Please set stream=false when using return_token_ids=true.',
      );
    }
  }
  if (body.messages.length === 0) throw new VllmError(400, 'Messages cannot be empty.');
  if (body.tool_choice === 'required' && (body.tools ?? []).length === 0) {
    throw new VllmError(400, 'Tools cannot be empty if tool choice is set to required.');
  }
  checkSingleChoice(body.n);
  return body;
}
