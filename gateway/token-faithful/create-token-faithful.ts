import type { FastifyBaseLogger } from 'fastify';
import type { BackendClient } from '../backends/vllm.js';
import type { ChatCallRenderer } from '../backends/chat-call-renderer.js';
import { isRecord } from '../../core/json/is-record.js';
import type { BackendFlavour, ReplicaCapabilities } from '../backends/fleet/fleet-types.js';
import { buildGenerateRequest } from '../backends/sglang/generate-request.js';
import { GenerateToCompletion } from '../backends/sglang/generate-to-completion.js';
import { createBackendPromptRenderer } from './backend-prompt-renderer.js';
import { completionRequestFromChat } from './completion-request-from-chat.js';
import { tokenHistoryEntry } from './history-entry.js';
import { createLocalPromptRenderer } from './local-prompt-renderer.js';
import { resolveModelFamily, type ResolvedModelFamily } from '../../model-format/families/model-families.js';
import type { OutputParserOptions, ReasoningParserName, ToolCallParserName } from './output-parsers.js';
import { planPrompt, type PromptPlan } from './plan-prompt.js';
import { promptRequestFrom, type PromptRenderer, type PromptRequest } from './prompt-renderer.js';
import { restoreTokenHistory, type TokenHistoryStore } from './restore-token-history.js';
import { SessionTokenHistory, type SessionTokenHistoryLimits } from './session-token-history.js';
import { TokenFaithfulAssembler } from './token-faithful-assembler.js';
import { tokenFaithfulCounters, countPlan, type TokenFaithfulCounters } from './token-faithful-counters.js';

export interface TokenFaithfulOptions {
  /** model names served token-faithfully (the harness's or the backend's name); `*` for all */
  models: readonly string[];
  /** a Hugging Face model folder to render with; without it the backend's /tokenize renders */
  modelDir?: string | undefined;
  /** `--model-family`: a family's name, or `auto` (the default): detected from `modelDir`, Qwen3 without one */
  modelFamily?: string | undefined;
  /** unset: the family's */
  reasoningParser?: ReasoningParserName | undefined;
  /** unset: the family's default */
  toolCallParser?: ToolCallParserName | undefined;
  backend: BackendClient;
  logger: FastifyBaseLogger;
  historyLimits?: SessionTokenHistoryLimits;
  /**
   * the gateway's store: a session's history this gateway does not hold (a restart, another gateway on the database
   * served its last call) is rebuilt from its recorded calls (restore-token-history.ts); without it, memory only
   */
  store?: TokenHistoryStore | undefined;
}

export interface PrepareInput {
  sessionId: string;
  /** the id the call will be recorded under (the history names the calls it extends) */
  callId: string;
  /** the model name the harness asked for */
  requestedModel: string | null;
  /** the vLLM chat body the front door built */
  chatBody: Record<string, unknown>;
  /** the front door's renderer */
  renderer: ChatCallRenderer;
  signal: AbortSignal;
}

/** How the pipeline sends one token-faithful call instead of the chat request. */
export interface TokenFaithfulRoute {
  backendPath: string;
  backendBody: Record<string, unknown>;
  /**
   * the assembler for one attempt; SGLang's route takes the serving replica's capabilities (whether its `/generate`
   * streams are incremental: a hint, the stream itself decides once it can tell), vLLM's ignores them
   */
  createAssembler: (capabilities?: Pick<ReplicaCapabilities, 'incrementalStreaming'>) => TokenFaithfulAssembler;
  renderer: ChatCallRenderer;
}

/** The outcome of `prepare` for a covered model. */
export interface TokenFaithfulPrepared {
  /** the vLLM route (`routes.vllm`), kept for callers that know one backend flavour */
  route: TokenFaithfulRoute | null;
  /** the call's route on each backend flavour (docs/backends.md): vLLM `/v1/completions`, SGLang `/generate`; null with `route` */
  routes: Record<BackendFlavour, TokenFaithfulRoute> | null;
  metadata: Record<string, unknown>;
  /**
   * Set when the call should have gone token-faithfully and went to the chat endpoint instead (`render-failed`: the
   * template refused the conversation, `/tokenize` failed): the reason, for the call's `token_faithful_fallback` flag
   * and `tokentap_token_faithful_fallbacks_total{reason}`. Requests the mode does not take by design (a prefill, images,
   * several choices) go plain without it.
   */
  fallback?: string;
}

export interface TokenFaithful {
  readonly counters: TokenFaithfulCounters;
  /**
   * Checks, once, what prompts are rendered with before the first call: with `modelDir`, the folder's tokenizer and
   * chat template load and a one-message conversation renders and tokenizes (the tokenizer is loaded here, once, and
   * reused by every call). Rejects with TokentapError TT_MODEL_DIR_INVALID naming the folder and what is wrong.
   * Without `modelDir` the backend's `/tokenize` renders and there is nothing to check.
   */
  ready(): Promise<void>;
  /**
   * The routes for a call of a covered model (one per backend flavour: send `routes[lease.flavour]`), with the call
   * metadata saying how its prompt came about; `route` and `routes` are null when the prompt could not be rendered
   * (the call then goes to the chat endpoint as usual, and the metadata says why). Null for models not covered.
   */
  prepare(input: PrepareInput): Promise<TokenFaithfulPrepared | null>;
}

/**
 * Token-in-token-out mode (docs/token-faithful.md): each session's token history stays in the gateway, and a
 * request that extends an earlier call is sent to `/v1/completions` as that call's prompt + completion ids + the
 * ids of just the new messages, so prompts stay token-identical across turns whatever the harness resends. The
 * completion is parsed here (reasoning, tool calls) and handed to the front door in the chat shape.
 *
 * @example const tokenFaithful = createTokenFaithful({ models: ['*'], reasoningParser: 'qwen3', toolCallParser: 'hermes', backend, logger });
 */
export function createTokenFaithful(options: TokenFaithfulOptions): TokenFaithful {
  // an unknown family, or a folder whose family cannot be told, is refused here, before the gateway starts
  const parsers = resolveModelFamily(options);
  const history = new SessionTokenHistory(options.historyLimits);
  const renderer: PromptRenderer =
    options.modelDir === undefined
      ? createBackendPromptRenderer(options.backend, parsers.family)
      : createLocalPromptRenderer(options.modelDir, parsers.family);
  const family = {
    name: parsers.family.name,
    reasoningParser: parsers.reasoningParser,
    toolCallParser: parsers.toolCallParser,
    // the family renders the prompts itself (DeepSeek V3.2 without a template), not the folder's template
    ...(options.modelDir !== undefined && parsers.family.renderPrompt !== undefined && parsers.family.rendererName !== undefined
      ? { renderer: parsers.family.rendererName }
      : {}),
  };
  const mode: ModeState = { options, parsers, history, renderer, counters: tokenFaithfulCounters(history, family) };
  const covers = (name: string | null): boolean => name !== null && (options.models.includes('*') || options.models.includes(name));
  let checked: Promise<void> | undefined;
  return {
    counters: mode.counters,
    ready() {
      checked ??= renderer.check?.() ?? Promise.resolve();
      return checked;
    },
    async prepare(input) {
      const backendModel = typeof input.chatBody.model === 'string' ? input.chatBody.model : null;
      if (!covers(input.requestedModel) && !covers(backendModel)) return null;
      const request = promptRequestFrom(input.chatBody);
      const unsuited = unsuitedReason(input.chatBody, request);
      if (unsuited !== null) return plainRoute(mode.counters, unsuited);
      if (options.store !== undefined) restoreQuietly(mode, options.store, input.sessionId);
      let plan: PromptPlan;
      try {
        plan = await planPrompt({ history, renderer, sessionId: input.sessionId, request, signal: input.signal });
      } catch (error) {
        options.logger.warn({ err: error, sessionId: input.sessionId }, 'token-faithful rendering failed; the call goes to the chat endpoint');
        return plainRoute(mode.counters, 'render-failed', (error as Error).message);
      }
      countPlan(mode.counters, plan);
      const routes = routesFor(mode, input, request, plan);
      return { metadata: { tokenFaithful: describePlan(plan) }, route: routes.vllm, routes };
    },
  };
}

interface ModeState {
  options: TokenFaithfulOptions;
  parsers: ResolvedModelFamily;
  history: SessionTokenHistory;
  renderer: PromptRenderer;
  counters: TokenFaithfulCounters;
}

/** Requests vLLM's chat endpoint must take itself, or null. */
function unsuitedReason(chatBody: Record<string, unknown>, request: PromptRequest): string | null {
  // prefilling an assistant turn has no earlier turn to extend
  if (chatBody.continue_final_message === true) return 'continue-final-message';
  // token ids cannot carry an image's pixels
  if (request.messages.some(hasNonTextPart)) return 'multimodal-content';
  // the session history keeps one completion per call, and the translation reads choice 0 only
  if (typeof chatBody.n === 'number' && chatBody.n > 1) return 'several-choices';
  return null;
}

/**
 * Each flavour's request, the assembler that reads its answer back as chat, and the renderer that remembers the call
 * (whichever route was sent: a retry on another replica makes a new assembler, the last one is remembered).
 */
function routesFor(mode: ModeState, input: PrepareInput, request: PromptRequest, plan: PromptPlan): Record<BackendFlavour, TokenFaithfulRoute> {
  const parserOptions: OutputParserOptions = {
    family: mode.parsers.family,
    reasoning: mode.parsers.reasoningParser,
    toolCalls: mode.parsers.toolCallParser,
    tools: request.tools ?? [],
    parseToolCalls: input.chatBody.tool_choice !== 'none',
    chatTemplateKwargs: isRecord(input.chatBody.chat_template_kwargs) ? input.chatBody.chat_template_kwargs : null,
  };
  let assembler: TokenFaithfulAssembler | null = null;
  const remember = (responseBody?: Record<string, unknown>): void => {
    if (assembler !== null) rememberCall(mode.history, input, plan, assembler, responseBody ?? assembler.responseBody());
  };
  const renderer = rememberingRenderer(input.renderer, remember);
  const model = typeof input.chatBody.model === 'string' ? input.chatBody.model : null;
  return {
    vllm: {
      backendPath: '/v1/completions',
      backendBody: completionRequestFromChat(input.chatBody, plan.promptIds, { keepSpecialTokens: mode.parsers.family.keepsSpecialTokens === true }),
      createAssembler: () => (assembler = new TokenFaithfulAssembler(parserOptions)),
      renderer,
    },
    sglang: {
      backendPath: '/generate',
      backendBody: buildGenerateRequest(input.chatBody, plan.promptIds, { keepSpecialTokens: mode.parsers.family.keepsSpecialTokens === true }),
      createAssembler: (capabilities) => {
        const translate = new GenerateToCompletion({ promptIds: plan.promptIds, model, incrementalStreaming: capabilities?.incrementalStreaming });
        return (assembler = new TokenFaithfulAssembler(parserOptions, translate));
      },
      renderer,
    },
  };
}

/** Plain-mode reasons that are fallbacks (flagged and counted), not requests the mode leaves to the chat endpoint by design. */
const FALLBACK_REASONS: ReadonlySet<string> = new Set(['render-failed']);

function plainRoute(counters: TokenFaithfulCounters, reason: string, error?: string): TokenFaithfulPrepared {
  counters.plain++;
  counters.reasons[reason] = (counters.reasons[reason] ?? 0) + 1;
  return {
    route: null,
    routes: null,
    metadata: { tokenFaithful: { mode: 'plain', reason, ...(error === undefined ? {} : { error: error.slice(0, 500) }) } },
    ...(FALLBACK_REASONS.has(reason) ? { fallback: reason } : {}),
  };
}

function hasNonTextPart(message: Record<string, unknown>): boolean {
  return Array.isArray(message.content) && message.content.some((part) => isRecord(part) && typeof part.text !== 'string');
}

/** The call metadata: `{mode: 'extend', extends}` or `{mode: 'fresh', reason, againstCallId?, divergedAt?}`. */
function describePlan(plan: PromptPlan): Record<string, unknown> {
  if (plan.mode === 'extend') return { mode: 'extend', extends: plan.extendsCallId, newTokens: plan.newTokenCount };
  const { mode, reason, againstCallId, divergedAt } = plan;
  return { mode, reason, ...(againstCallId === undefined ? {} : { againstCallId }), ...(divergedAt === undefined ? {} : { divergedAt }) };
}

/**
 * Keeps an answered call in the session's history: the entry the store's copy of it rebuilds to (history-entry.ts),
 * from the chat-shaped body the call is stored with (the whole body, or the stream's assembled one).
 */
function rememberCall(
  history: SessionTokenHistory,
  input: PrepareInput,
  plan: PromptPlan,
  assembler: TokenFaithfulAssembler,
  responseBody: Record<string, unknown>,
): void {
  const entry = tokenHistoryEntry({ callId: input.callId, keys: plan, responseBody, tokens: assembler.tokenRecord() });
  if (entry !== null) history.remember(input.sessionId, entry);
}

/**
 * Rebuilds what the store has of the session that memory lacks. A store that cannot be read costs the chain, never
 * the call: the history in memory is planned with.
 */
function restoreQuietly(mode: ModeState, store: TokenHistoryStore, sessionId: string): void {
  try {
    restoreTokenHistory(mode.history, store, sessionId);
  } catch (error) {
    mode.options.logger.warn({ err: error, sessionId }, 'token-faithful history could not be read from the store; the call is planned from memory');
  }
}

/** The front door's renderer, plus: once the call is answered and stored, remember it. */
function rememberingRenderer(inner: ChatCallRenderer, remember: (responseBody?: Record<string, unknown>) => void): ChatCallRenderer {
  return {
    renderBody(completion) {
      remember(completion);
      return inner.renderBody(completion);
    },
    streamHeaders: () => inner.streamHeaders(),
    renderChunk: (chunk, assembler) => inner.renderChunk(chunk, assembler),
    renderStreamEnd(assembler) {
      remember();
      return inner.renderStreamEnd(assembler);
    },
    renderStreamError: (error, backendBody) => inner.renderStreamError(error, backendBody),
  };
}
