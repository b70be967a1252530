import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { completionFacts, opensThinkingTurn } from '../handle-completion.js';
import { completionRequestSchema } from '../read-generation-request.js';
import { bodyBytes, fastPromptIds, seedHash } from '../request-basics.js';
import { respondWithGeneration, runWithRecord } from '../respond.js';
import { seededPolicyReply } from '../seeded-policy.js';
import { createSeededRandom, hashNumbers } from '../seeded-random.js';
import type { SimContext } from '../sim-context.js';
import type { SimGenerationRecord } from '../sim-generation-record.js';
import { VllmError } from '../vllm-error.js';
import { checkContextLength, checkSingleChoice, readSglangBody, sglangRequestId } from './generate-request.js';
import { sglangCompletionBody, sglangCompletionStreamEvents } from './sglang-completion-answer.js';
import { runSglangGeneration, sglangLogprobSource, sglangStopSettings } from './sglang-generation.js';

const sglangCompletionSchema = completionRequestSchema.extend({
  max_tokens: z.number().int().positive().nullish(),
  no_stop_trim: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  rid: z.string().nullish(),
});

/** protocol.py CompletionRequest's default `max_tokens`. */
const DEFAULT_COMPLETION_MAX_TOKENS = 16;

/**
 * SGLang's `POST /v1/completions`: one string or token-id prompt, no template; `return_token_ids` works streamed and
 * not (see sglang-completion-answer.ts).
 *
 * @example
 * registerSglangCompletions(app, context);
 */
export function registerSglangCompletions(app: FastifyInstance, context: SimContext): void {
  app.post('/v1/completions', (request, reply) =>
    runWithRecord(context, request, 'completions', (record) => completion(context, request, reply, record), sglangRequestId(request.body)).then(
      () => reply,
    ),
  );
}

async function completion(context: SimContext, request: FastifyRequest, reply: FastifyReply, record: SimGenerationRecord): Promise<void> {
  const body = readSglangBody(sglangCompletionSchema, request.body);
  checkSingleChoice(body.n);
  let prompt: unknown = body.prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] !== 'number') prompt = prompt[0];
  if (typeof prompt === 'string') {
    record.promptText = prompt;
    record.promptTokenIds = context.fast ? fastPromptIds(bodyBytes(request)) : (await context.tokenizer()).encode(prompt);
  } else if (Array.isArray(prompt) && prompt.length > 0 && prompt.every((id) => typeof id === 'number')) record.promptTokenIds = prompt as number[];
  else throw new VllmError(400, 'The tokentap simulator takes one non-empty prompt per request (a string or a list of token ids).');
  const maxNewTokens = body.max_tokens ?? DEFAULT_COMPLETION_MAX_TOKENS;
  checkContextLength(context.maxModelLen, record.promptTokenIds.length, maxNewTokens);
  const hash = seedHash(context, request, record.promptTokenIds);
  const random = createSeededRandom(hashNumbers([context.seed, hash]));
  const result = await runSglangGeneration(
    context,
    record,
    reply,
    completionFacts(body, record),
    {
      thinking: opensThinkingTurn(record, context.family),
      maxNewTokens,
      ...sglangStopSettings(body, hash),
    },
    () => seededPolicyReply({ random, thinking: false, tools: [], toolChoice: 'none' }),
  );
  if (result === null) return;
  const logprobs = body.logprobs;
  const answer = {
    id: record.requestId,
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'default',
    promptTokenIds: record.promptTokenIds,
    result,
    weightVersion: context.weightVersion,
    logprobs:
      logprobs === undefined || logprobs === null
        ? null
        : sglangLogprobSource(context, record, result, hash, { logprobStartLen: -1, topLogprobsNum: logprobs, returnText: true }),
    returnTokenIds: body.return_token_ids === true,
    includeUsage: body.stream === true && body.stream_options?.include_usage === true,
    streamInterval: context.streamInterval,
  };
  await respondWithGeneration(context, record, reply, result.fault, result.generation, {
    stream: body.stream === true,
    body: () => sglangCompletionBody(answer),
    events: () => sglangCompletionStreamEvents(answer),
  });
}
