import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { GatewayContext } from '../../gateway-context.js';
import { prepareChatRequest } from '../../backends/vllm-chat-request.js';
import { applyThinkingSwitch, enableThinkingFor } from '../../backends/thinking-switch.js';
import { runChatCall } from '../../calls/run-chat-call.js';
import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { attributeCall } from '../../rollouts/admit-call.js';
import { normalizeInput } from './responses-input-items.js';
import { newResponseId, type OutputItem } from './responses-output-items.js';
import { responsesRequestToChat } from './responses-request-to-chat.js';
import { responseHistoryFor, type ResponseHistory } from './openai-responses-history.js';
import { createOpenAiResponsesRenderer } from './openai-responses-renderer.js';

/**
 * What tokentap reads of a Responses request (openai-node `ResponseCreateParams`); items and tools are checked
 * one by one by the translation, which names the bad one. Other fields are echoed or recorded, not forwarded.
 */
const responsesBodySchema = z.looseObject({
  model: z.string().optional(),
  input: z.union([z.string(), z.array(z.unknown())]).nullish(),
  instructions: z.string().nullish(),
  tools: z.array(z.unknown()).nullish(),
  tool_choice: z.unknown().optional(),
  stream: z.boolean().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  store: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  text: z.looseObject({ format: z.looseObject({ type: z.string() }).nullish() }).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  include: z.array(z.string()).nullish(),
  background: z.boolean().nullish(),
  conversation: z.unknown().optional(),
});

type RouteParams = { sessionId?: string };

/** @example app.register(async (scope) => registerOpenAiResponses(scope, context), { prefix: '/v1' }) */
export function registerOpenAiResponses(app: FastifyInstance, context: GatewayContext): void {
  app.post<{ Params: RouteParams }>('/responses', (request, reply) => handleResponses(request, reply, context));
}

/**
 * Validates a Responses body; throws TT_INVALID_REQUEST naming the first bad field, and TT_UNSUPPORTED_FEATURE
 * for what needs OpenAI's server-side state (`background` runs polled later, `conversation` objects).
 */
export function parseResponsesBody(body: unknown): Record<string, unknown> {
  const parsed = responsesBodySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const param = issue?.path.join('.') ?? null;
    throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid responses request: ${z.prettifyError(parsed.error)}`, param });
  }
  const data = parsed.data;
  if (data.background === true)
    throw new TokentapError('TT_UNSUPPORTED_FEATURE', {
      message: 'background responses are not supported: tokentap serves each call while the harness waits',
      param: 'background',
    });
  if (data.conversation !== undefined && data.conversation !== null) {
    throw new TokentapError('TT_UNSUPPORTED_FEATURE', {
      message: 'conversation objects are not supported; resend the input or use previous_response_id',
      param: 'conversation',
    });
  }
  if ((data.input === undefined || data.input === null) && !data.previous_response_id) {
    throw new TokentapError('TT_INVALID_REQUEST', { message: 'Invalid responses request: input is required', param: 'input' });
  }
  return data as Record<string, unknown>;
}

/** The conversation to send: the earlier response's history (when continued), then this request's input. */
function resolveInputItems(body: Record<string, unknown>, history: ResponseHistory, sessionId: string): unknown[] {
  const input = normalizeInput(body.input as string | unknown[] | null | undefined);
  const previousId = body.previous_response_id;
  if (typeof previousId !== 'string') return input;
  const earlier = history.recall(sessionId, previousId);
  if (earlier === undefined) {
    throw new TokentapError('TT_PREVIOUS_RESPONSE_NOT_FOUND', {
      message: `Previous response with id '${previousId.slice(0, 200)}' not found. tokentap keeps the last responses of each session in memory only (not across restarts, not with store: false).`,
      param: 'previous_response_id',
    });
  }
  return [...earlier, ...input];
}

async function handleResponses(request: FastifyRequest<{ Params: RouteParams }>, reply: FastifyReply, context: GatewayContext): Promise<void> {
  const body = parseResponsesBody(request.body);
  // the same attribution the call will get (a session key picks the session): history is kept per session
  const { sessionId } = attributeCall(request, context.rollouts, context.config);
  const history = responseHistoryFor(context);
  const inputItems = resolveInputItems(body, history, sessionId);
  const { chatBody, names, notes } = responsesRequestToChat(body, inputItems);
  const { backendBody } = prepareChatRequest(chatBody, { model: context.config.model, topLogprobs: context.config.topLogprobs });
  applyThinkingSwitch(backendBody, enableThinkingFor({ protocol: 'responses', reasoning: body.reasoning }));
  const envelope = {
    id: newResponseId(),
    createdAt: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : String(backendBody.model ?? ''),
    request: body,
  };
  // store: false (Codex's default) asks that nothing be kept
  const onFinished =
    body.store === false ? undefined : (output: OutputItem[]): void => history.remember(sessionId, envelope.id, [...inputItems, ...output]);
  await runChatCall({
    request,
    reply,
    context,
    frontDoor: 'openai-responses',
    requestBody: body,
    backendBody,
    stream: body.stream === true,
    renderer: createOpenAiResponsesRenderer({ envelope, names, ...(onFinished === undefined ? {} : { onFinished }) }),
    // the id and creation time are kept so `tokentap show --call` can rebuild the response object the harness got
    metadata: { responses: { responseId: envelope.id, createdAt: envelope.createdAt, ...notes } },
  });
}
