import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actEarlyFault } from './act-early-fault.js';
import { chatMessageFields, type ChatMessageFields } from './chat-message-fields.js';
import { chatFacts, chatSettings, renderChatPrompt, type ChatSettings } from './chat-prompt.js';
import { chatResponseBody, type ChatAnswer } from './chat-response-body.js';
import { chatStreamEvents } from './chat-stream-events.js';
import { checkChatReply } from './check-chat-reply.js';
import { decodeTokenFor, respondWithGeneration, runWithRecord } from './respond.js';
import { chatRequestSchema, readGenerationRequest, usageOptions, type ChatRequest } from './read-generation-request.js';
import { bodyBytes, checkModel, fastPromptIds, resolveMaxTokens, seedHash, stopConditions } from './request-basics.js';
import { decideReply, generateCompletion, type Generation } from './generate-completion.js';
import { readKimiK2Prompt } from './read-kimi-k2-prompt.js';
import { seededPolicyReply } from './seeded-policy.js';
import { createSeededRandom, hashNumbers } from './seeded-random.js';
import type { SimContext } from './sim-context.js';
import type { SimGenerationRecord } from './sim-generation-record.js';

/**
 * `POST /v1/chat/completions`, streamed or not: template and tokenize the messages, pick the reply (script,
 * policy or canned), generate, lay the reply's reasoning, content and tool calls out as vLLM reports them (from the
 * reply's structure: nothing is parsed), record, answer like vLLM.
 *
 * @example
 * registerChatCompletions(app, context);
 */
export function registerChatCompletions(app: FastifyInstance, context: SimContext): void {
  app.post('/v1/chat/completions', (request, reply) =>
    runWithRecord(context, request, 'chat', (record) => chatCompletion(context, request, reply, record)).then(() => reply),
  );
}

async function chatCompletion(context: SimContext, request: FastifyRequest, reply: FastifyReply, record: SimGenerationRecord): Promise<void> {
  const body = readGenerationRequest(chatRequestSchema, request.body);
  checkModel(context, body.model);
  const settings = chatSettings(body);
  await fillChatPrompt(context, request, record, body, settings);
  const maxTokens = resolveMaxTokens(context, record.promptTokenIds.length, body.max_completion_tokens ?? body.max_tokens);
  const hash = seedHash(context, request, record.promptTokenIds);
  const random = createSeededRandom(hashNumbers([context.seed, hash]));
  const decision = decideReply(context, chatFacts(body, settings), () =>
    seededPolicyReply({ random, thinking: settings.thinking, tools: settings.tools, toolChoice: body.tool_choice }),
  );
  record.scriptEntry = decision.scriptEntry;
  checkChatReply(decision.reply, decision.scriptEntry);
  if (actEarlyFault(context, record, decision.fault, reply)) return;
  // Kimi K2 numbers its calls across the conversation: from the calls its rendered prompt holds
  const kimi = context.family === 'kimi-k2' && !context.fast ? readKimiK2Prompt(await context.tokenizer(), record) : null;
  const generation = await generateCompletion(context, decision, {
    thinking: settings.thinking,
    maxTokens,
    promptHash: hash,
    firstCallIndex: kimi?.callsBefore ?? 0,
    ...stopConditions(body),
  });
  const output = chatMessageFields(generation.layout, { textEnd: generation.text.length, parseToolCalls: settings.parseToolCalls });
  const answer = chatAnswer(context, record, body, settings, generation, output, hash);
  fillRecord(record, answer, decision.fault);
  const streamInput = {
    ...answer,
    ...usageOptions(body),
    parseToolCalls: settings.parseToolCalls,
    namedToolChoice: settings.namedToolChoice,
    dropSwallowed: context.dropStreamedToolCallIds,
    streamInterval: context.streamInterval,
  };
  await respondWithGeneration(context, record, reply, decision.fault, generation, {
    stream: body.stream === true,
    body: () => chatResponseBody(answer),
    events: () => chatStreamEvents(streamInput),
  });
}

async function fillChatPrompt(
  context: SimContext,
  request: FastifyRequest,
  record: SimGenerationRecord,
  body: ChatRequest,
  settings: ChatSettings,
): Promise<void> {
  if (context.fast) {
    record.promptTokenIds = fastPromptIds(bodyBytes(request));
    return;
  }
  const prompt = renderChatPrompt(await context.tokenizer(), body, settings);
  [record.promptTokenIds, record.promptText] = [prompt.tokenIds, prompt.text];
}

function chatAnswer(
  context: SimContext,
  record: SimGenerationRecord,
  body: ChatRequest,
  settings: ChatSettings,
  generation: Generation,
  output: ChatMessageFields,
  hash: number,
): ChatAnswer {
  const calledTools = output.toolCalls.length > 0 && !settings.namedToolChoice;
  return {
    requestId: record.requestId,
    created: Math.floor(Date.now() / 1000),
    model: context.modelName,
    promptTokenIds: record.promptTokenIds,
    generation,
    output,
    finishReason: calledTools ? 'tool_calls' : generation.plan.finishReason,
    logprobs:
      body.logprobs === true
        ? {
            source: { seed: context.seed, promptHash: hash },
            logprobs: generation.logprobs,
            topLogprobs: body.top_logprobs === -1 ? 20 : (body.top_logprobs ?? 0),
            decodeToken: decodeTokenFor(context),
          }
        : null,
    returnTokenIds: body.return_token_ids === true,
    reasoningField: context.reasoningField,
    unrequestedTokenIds: context.unrequestedTokenIds,
    wrongTokenIds: false,
  };
}

function fillRecord(record: SimGenerationRecord, answer: ChatAnswer, fault: SimGenerationRecord['fault'] | null): void {
  const { plan, logprobs, text } = answer.generation;
  record.completionTokenIds = [...plan.tokenIds];
  record.logprobs = logprobs;
  record.finishReason = answer.finishReason;
  record.stopReason = plan.stopReason;
  record.text = text;
  record.reasoning = answer.output.reasoning;
  record.content = answer.output.content;
  record.toolCalls = answer.output.toolCalls.map((call) => ({ ...call.function }));
  answer.wrongTokenIds = fault?.kind === 'wrong-token-ids';
  if (fault !== null && fault !== undefined) record.fault = fault;
}
