import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { opensThinkingTurn } from '../handle-completion.js';
import { bodyBytes, fastPromptIds, seedHash } from '../request-basics.js';
import { respondWithGeneration, runWithRecord } from '../respond.js';
import { seededPolicyReply } from '../seeded-policy.js';
import { createSeededRandom, hashNumbers } from '../seeded-random.js';
import type { SimContext } from '../sim-context.js';
import type { SimGenerationRecord } from '../sim-generation-record.js';
import { VllmError } from '../vllm-error.js';
import { generateBody, generateStreamEvents } from './generate-answer.js';
import {
  checkContextLength,
  DEFAULT_MAX_NEW_TOKENS,
  generatePrompt,
  readGenerateRequest,
  sglangRequestId,
  type GenerateRequest,
} from './generate-request.js';
import { cachedPrefix, runSglangGeneration, sglangLogprobSource, sglangStopSettings, type SglangGeneration } from './sglang-generation.js';

/**
 * SGLang's native `POST /generate` (and PUT, as http_server.py routes it): a `text` or `input_ids` prompt, no chat
 * template, `sampling_params`, logprobs on request (`return_logprob`, `top_logprobs_num`, `logprob_start_len`,
 * `return_text_in_logprobs`), streamed or not. See generate-answer.ts for the answer's shape.
 *
 * @example
 * registerGenerate(app, context);
 */
export function registerGenerate(app: FastifyInstance, context: SimContext): void {
  app.route({
    method: ['POST', 'PUT'],
    url: '/generate',
    handler: (request, reply) =>
      runWithRecord(context, request, 'generate', (record) => generate(context, request, reply, record), sglangRequestId(request.body)).then(
        () => reply,
      ),
  });
}

async function generate(context: SimContext, request: FastifyRequest, reply: FastifyReply, record: SimGenerationRecord): Promise<void> {
  const startedAt = Date.now();
  const body = readGenerateRequest(request.body);
  const prompt = generatePrompt(body);
  if (typeof prompt === 'string') {
    record.promptText = prompt;
    record.promptTokenIds = context.fast ? fastPromptIds(bodyBytes(request)) : (await context.tokenizer()).encode(prompt);
  } else record.promptTokenIds = prompt;
  const sampling = body.sampling_params ?? {};
  const maxNewTokens = sampling.max_new_tokens ?? DEFAULT_MAX_NEW_TOKENS;
  if (maxNewTokens < 1) throw new VllmError(400, `The tokentap simulator needs max_new_tokens >= 1, got ${maxNewTokens}.`);
  checkContextLength(context.maxModelLen, record.promptTokenIds.length, maxNewTokens);
  const hash = seedHash(context, request, record.promptTokenIds);
  const random = createSeededRandom(hashNumbers([context.seed, hash]));
  const cachedTokens = cachedPrefix(context, record.promptTokenIds);
  const result = await runSglangGeneration(
    context,
    record,
    reply,
    {
      endpoint: 'generate',
      stream: body.stream === true,
      model: null,
      hasTools: false,
      lastUserText: null,
      lastToolResultText: null,
      promptTexts: record.promptText === null ? [] : [record.promptText],
    },
    {
      thinking: opensThinkingTurn(record, context.family),
      maxNewTokens,
      ...sglangStopSettings(sampling, hash),
      textSkipsSpecialTokens: true,
    },
    () => seededPolicyReply({ random, thinking: false, tools: [], toolChoice: 'none' }),
  );
  if (result === null) return;
  const answer = {
    id: record.requestId,
    result,
    promptTokens: record.promptTokenIds.length,
    weightVersion: context.weightVersion,
    logprobs: logprobSource(context, body, record, result, hash),
    cachedTokens,
    startedAt,
    incremental: context.incrementalStreamingOutput,
    streamInterval: context.streamInterval,
  };
  await respondWithGeneration(context, record, reply, result.fault, result.generation, {
    stream: body.stream === true,
    body: () => generateBody(answer),
    events: () => generateStreamEvents(answer),
  });
}

function logprobSource(context: SimContext, body: GenerateRequest, record: SimGenerationRecord, result: SglangGeneration, hash: number) {
  if (body.return_logprob !== true) return null;
  return sglangLogprobSource(context, record, result, hash, {
    logprobStartLen: body.logprob_start_len ?? -1,
    topLogprobsNum: body.top_logprobs_num ?? 0,
    returnText: body.return_text_in_logprobs === true,
  });
}
