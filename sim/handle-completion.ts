import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actEarlyFault } from './act-early-fault.js';
import { completionResponseBody, completionStreamEvents, type CompletionAnswer } from './completion-answer.js';
import { decideReply, generateCompletion, type Generation } from './generate-completion.js';
import { completionRequestSchema, readGenerationRequest, usageOptions, type CompletionRequest } from './read-generation-request.js';
import { bodyBytes, checkModel, fastPromptIds, resolveMaxTokens, seedHash, stopConditions } from './request-basics.js';
import { decodeTokenFor, respondWithGeneration, runWithRecord } from './respond.js';
import { opensGlm45Turn } from './read-glm45-prompt.js';
import { readKimiK2Prompt } from './read-kimi-k2-prompt.js';
import { opensDeepSeekV32Thinking } from './read-deepseek-v32-prompt.js';
import { seededPolicyReply } from './seeded-policy.js';
import { createSeededRandom, hashNumbers } from './seeded-random.js';
import type { SimContext } from './sim-context.js';
import type { SimFamily } from './sim-options.js';
import type { SimGenerationRecord } from './sim-generation-record.js';
import type { RequestFacts } from './sim-script.js';
import { VllmError } from './vllm-error.js';

/** vLLM's CompletionRequest default `max_tokens` (an explicit null means "the rest of the context"). */
const DEFAULT_COMPLETION_MAX_TOKENS = 16;

/**
 * `POST /v1/completions`: a text or token-id prompt, no chat template and no reasoning or tool parsing
 * (vLLM runs neither on completions): a structured reply comes back as the text the model writes for it. Token
 * ids and the prompt's ids come back inside the choice.
 *
 * @example
 * registerCompletions(app, context);
 */
export function registerCompletions(app: FastifyInstance, context: SimContext): void {
  app.post('/v1/completions', (request, reply) =>
    runWithRecord(context, request, 'completions', (record) => completion(context, request, reply, record)).then(() => reply),
  );
}

async function completion(context: SimContext, request: FastifyRequest, reply: FastifyReply, record: SimGenerationRecord): Promise<void> {
  const body = readGenerationRequest(completionRequestSchema, request.body);
  checkModel(context, body.model);
  await readPrompt(context, record, body, bodyBytes(request));
  const requested = body.max_tokens === undefined ? DEFAULT_COMPLETION_MAX_TOKENS : body.max_tokens;
  const maxTokens = resolveMaxTokens(context, record.promptTokenIds.length, requested);
  const hash = seedHash(context, request, record.promptTokenIds);
  const random = createSeededRandom(hashNumbers([context.seed, hash]));
  const decision = decideReply(context, completionFacts(body, record), () =>
    seededPolicyReply({ random, thinking: false, tools: [], toolChoice: 'none' }),
  );
  record.scriptEntry = decision.scriptEntry;
  if (actEarlyFault(context, record, decision.fault, reply)) return;
  const kimi = context.family === 'kimi-k2' ? readKimiK2Prompt(await context.tokenizer(), record) : null;
  const thinking =
    context.family === 'deepseek-v32'
      ? opensDeepSeekV32Thinking(await context.tokenizer(), record)
      : context.family === 'glm45'
        ? opensGlm45Turn(await context.tokenizer(), record)
        : (kimi?.opensTurn ?? opensThinkingTurn(record, context.family));
  const generation = await generateCompletion(context, decision, {
    thinking,
    maxTokens,
    promptHash: hash,
    firstCallIndex: kimi?.callsBefore ?? 0,
    ...stopConditions(body),
  });
  const answer = completionAnswer(context, record, body, generation, hash);
  answer.wrongTokenIds = decision.fault?.kind === 'wrong-token-ids';
  Object.assign(record, {
    completionTokenIds: [...generation.plan.tokenIds],
    logprobs: generation.logprobs,
    finishReason: generation.plan.finishReason,
    stopReason: generation.plan.stopReason,
    text: generation.text,
    ...(decision.fault === null ? {} : { fault: decision.fault }),
  });
  await respondWithGeneration(context, record, reply, decision.fault, generation, {
    stream: body.stream === true,
    body: () => completionResponseBody(answer),
    events: () => completionStreamEvents(answer),
  });
}

// `<|im_start|>assistant\n` in Qwen3's vocabulary, and the `<think>\n` Qwen3.5's template adds when thinking is on
const ASSISTANT_TURN_IDS = [151644, 77091, 198];
const THINK_OPEN_IDS = [151667, 198];

/**
 * A scripted reply's reasoning is written (as `<think>…</think>`) when the prompt ends by opening a Qwen3 assistant
 * turn with thinking left on, as a chat prompt rendered by a token-faithful gateway does: the model then thinks
 * first. After the template's thinking-off opening (`<think>\n\n</think>\n\n`) or a plain text prompt it does not.
 * Qwen3.5's template opens the think block itself when thinking is on: for that family the prompt then ends
 * `<|im_start|>assistant\n<think>\n`.
 *
 * @example
 * opensThinkingTurn(record); // true for a prompt ending in `<|im_start|>assistant\n`
 */
export function opensThinkingTurn(record: SimGenerationRecord, family: SimFamily = 'qwen3'): boolean {
  const ending = family === 'qwen3.5' ? [...ASSISTANT_TURN_IDS, ...THINK_OPEN_IDS] : ASSISTANT_TURN_IDS;
  if (record.promptText !== null)
    return record.promptText.endsWith(family === 'qwen3.5' ? '<|im_start|>assistant\n<think>\n' : '<|im_start|>assistant\n');
  const ids = record.promptTokenIds;
  return ending.every((id, index) => ids[ids.length - ending.length + index] === id);
}

/**
 * What the script matcher knows of a text-prompt completion (no messages, no tools); SGLang's `/v1/completions` reads the same.
 *
 * @example
 * decideReply(context, completionFacts(body, record), policy);
 */
export function completionFacts(body: CompletionRequest, record: SimGenerationRecord): RequestFacts {
  return {
    endpoint: 'completions',
    stream: body.stream === true,
    model: body.model ?? null,
    hasTools: false,
    lastUserText: null,
    lastToolResultText: null,
    promptTexts: record.promptText === null ? [] : [record.promptText],
  };
}

/** One prompt only: a string, a list of ids, or a one-element list of either. */
async function readPrompt(context: SimContext, record: SimGenerationRecord, body: CompletionRequest, bytes: number): Promise<void> {
  let prompt: unknown = body.prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && typeof prompt[0] !== 'number') prompt = prompt[0];
  if (typeof prompt === 'string') {
    if (prompt === '') throw new VllmError(400, 'Either prompt or prompt_embeds must be provided and non-empty.', { param: 'prompt' });
    record.promptText = prompt;
    record.promptTokenIds = context.fast ? fastPromptIds(bytes) : (await context.tokenizer()).encode(prompt);
    return;
  }
  if (Array.isArray(prompt) && prompt.every((id) => typeof id === 'number')) {
    if (prompt.length === 0) throw new VllmError(400, 'Either prompt or prompt_embeds must be provided and non-empty.', { param: 'prompt' });
    record.promptTokenIds = prompt as number[];
    return;
  }
  throw new VllmError(400, 'The tokentap simulator takes one prompt per request (a string or a list of token ids).', { param: 'prompt' });
}

function completionAnswer(
  context: SimContext,
  record: SimGenerationRecord,
  body: CompletionRequest,
  generation: Generation,
  hash: number,
): CompletionAnswer {
  const logprobs = body.logprobs;
  return {
    requestId: record.requestId,
    created: Math.floor(Date.now() / 1000),
    model: context.modelName,
    promptTokenIds: record.promptTokenIds,
    generation,
    logprobs:
      logprobs === undefined || logprobs === null
        ? null
        : {
            source: { seed: context.seed, promptHash: hash },
            logprobs: generation.logprobs,
            topLogprobs: logprobs === -1 ? 20 : logprobs,
            decodeToken: decodeTokenFor(context),
          },
    returnTokenIds: body.return_token_ids === true,
    unrequestedTokenIds: context.unrequestedTokenIds,
    wrongTokenIds: false,
    streamInterval: context.streamInterval,
    ...usageOptions(body),
  };
}
