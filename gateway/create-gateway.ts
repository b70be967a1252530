import fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { openStore } from '../store/index.js';
import { isInMemory } from '../store/open-store.js';
import type { Store } from '../store/types.js';
import { gatewayConfigSchema, type GatewayConfig, type GatewayConfigInput } from './config/gateway-config.js';
import { createVllmBackend } from './backends/vllm.js';
import { createBackendFleet } from './backends/fleet/create-backend-fleet.js';
import type { BackendSpec } from './backends/fleet/fleet-types.js';
import { anyReplicaClient } from './backends/any-replica-client.js';
import { backendSpecs } from './config/backend-specs.js';
import { registerFleetMetrics } from './metrics/register-fleet-metrics.js';
import { registerRolloutReadMetrics } from './metrics/register-rollout-read-metrics.js';
import { TokentapError } from '../core/errors/tokentap-error.js';
import { createRecorder } from './recorder/create-recorder.js';
import type { Recorder } from './recorder/recorder.js';
import type { GatewayContext } from './gateway-context.js';
import { createGatewayLogger, type GatewayLoggerOption } from './create-gateway-logger.js';
import { RequestLogController } from './http/request-log-controller.js';
import { logCallEnds } from './calls/log-call-ends.js';
import { registerOpenAiChat } from './protocols/openai-chat/openai-chat.js';
import { registerOpenAiModels } from './protocols/openai-models/openai-models.js';
import { registerOpenAiResponses } from './protocols/openai-responses/openai-responses.js';
import { registerOpenAiCompletions } from './protocols/openai-completions/openai-completions.js';
import { openAiErrorHandler } from './errors/openai-error-handler.js';
import { ANTHROPIC_MESSAGES_PATH, registerAnthropicFrontDoor } from './protocols/anthropic-messages/anthropic-messages.js';
import { anthropicErrorHandler } from './protocols/anthropic-messages/anthropic-error-handler.js';
import { createTokenFaithful } from './token-faithful/create-token-faithful.js';
import { RolloutControl } from './rollouts/rollout-control.js';
import { createLocalRolloutApi } from './rollouts/local-rollout-api.js';
import type { RolloutApi } from './rollouts/rollout-api.js';
import { registerAdminApi } from './admin/register-admin-api.js';
import { adminErrorHandler } from './admin/admin-error-handler.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { observeRecorder } from './metrics/observe-recorder.js';
import { registerObservabilityRoutes } from './metrics/register-observability-routes.js';
import { answerClientError } from './security/answer-client-error.js';
import { createFrameworkErrorAnswer, MAX_PARAM_LENGTH, type PathErrorScope } from './security/answer-framework-error.js';
import { registerJsonBodyParser } from './security/json-body-parser.js';
import { registerHostCheck } from './security/host-check.js';
import { registerLingeringClose } from './security/linger-before-close.js';
import { registerRateLimit } from './security/rate-limit.js';
import { publicBindWarnings } from './security/public-bind-warnings.js';
import { requestTimeoutOptions } from './security/request-timeout-options.js';
import { installGracefulDrain } from './graceful-drain.js';
import { startGatewayInstance } from './gateway-instance.js';
import { registerViewer } from '../ui/server/register-viewer.js';
import { ViewerThread, viewerWorkerUrl } from '../ui/server/viewer-thread.js';
import { loadViewerTokenizer, UNUSABLE_TOKENIZER_MESSAGE } from '../ui/server/load-viewer-tokenizer.js';
import type { ViewerTokenizer } from '../ui/server/viewer-options.js';
import { authorizeViewer } from './admin/authorize-viewer.js';
import type { GatewayEventName } from './rollouts/rollout-api.js';

export interface GatewayOptions extends GatewayConfigInput {
  /**
   * Logging, off unless asked (a script embedding the gateway prints nothing of its own): absent or `false` silent;
   * `true` pino on stdout at `logLevel` in `logFormat` (one info line per call, `call ended`); a level name (`'debug'`)
   * the same at that level; or a pino logger of yours. `tokentap serve` passes `true`.
   */
  logger?: GatewayLoggerOption;
  /** an already open store (the gateway then does not close it) */
  store?: Store;
}

/**
 * The gateway: its fastify app, store and config, and the rollout API in-process (docs/rollouts.md).
 *
 * @example
 * const gateway: Gateway = createGateway({ db: ':memory:' });
 * const answer = await gateway.app.inject({ method: 'GET', url: '/healthz' });
 */
export interface Gateway extends RolloutApi {
  /** the fastify instance; it does not listen until `listen()` */
  app: FastifyInstance;
  store: Store;
  config: GatewayConfig;
  /** the store's writer: counters and health (on a worker thread unless `recordInWorker` is off) */
  recorder: Recorder;
  /** starts listening on `config.host:config.port`; resolves to the base URL, e.g. http://127.0.0.1:4000 */
  listen(): Promise<string>;
  /**
   * Stops accepting (new requests get 503 TT_SHUTTING_DOWN), lets in-flight calls end for up to `shutdownTimeoutMs`
   * and cuts the rest (recorded `aborted`), then flushes the recorder and closes the backend pool and the store
   * (`closeReport()` then says how many calls did not reach a final status)
   */
  close(): Promise<void>;
  /** What the shutdown left behind; null until `close()` has ended. */
  closeReport(): GatewayCloseReport | null;
}

/** What a gateway's shutdown left behind. */
export interface GatewayCloseReport {
  /**
   * calls left `in_progress`: a handler still running after its connection was cut, or an end the store would not
   * take (a full disk); the next gateway to start on the database marks them `incomplete`. 0 when every call ended.
   */
  unfinishedCalls: number;
}

/**
 * Builds the gateway: front doors, backend client, recorder, store and the rollout API. Never listens by itself,
 * so tests use `app.inject()` and the CLI calls `listen()`.
 *
 * @example
 * const gateway = createGateway({ backendUrl: 'http://127.0.0.1:8000', db: './tokentap.db' });
 * await gateway.listen();
 * const session = await gateway.createSession({ groupId: 'task-7' });
 * const client = new OpenAI(session.openai); // every call is recorded in session.id
 * await session.reward(1);
 * await session.end('completed');
 */
export function createGateway(options: GatewayOptions = {}): Gateway {
  const { logger: givenLogger, store: givenStore, ...input } = options;
  const config = gatewayConfigSchema.parse(input);
  const logger = createGatewayLogger(givenLogger, config);
  const store =
    givenStore ??
    openStore({
      path: config.db,
      queryTimeoutMs: config.dbQueryTimeoutMs,
      ...(config.dbMaxBytes === undefined ? {} : { maxBytes: config.dbMaxBytes }),
    });
  // several gateways may write one database: only the calls of gateways that are gone are marked incomplete
  const instance = startGatewayInstance(store, logger as FastifyBaseLogger, { heartbeatMs: config.instanceHeartbeatMs });
  // while closing, requests on open connections are refused by graceful-drain.ts in their protocol's shape
  // fastify's per-request lines go to debug: a call's one info line is its `call ended` (calls/log-call-ends.ts)
  const app = fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new RequestLogController(),
    bodyLimit: config.bodyLimit,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // requests the HTTP parser refuses (headers over maxHeaderSize, CR/LF in a header) get an error body every client reads
    http: { maxHeaderSize: config.maxHeaderSize, ...requestTimeoutOptions(config.requestTimeoutMs) },
    clientErrorHandler: answerClientError,
    // a client trickling its request (slowloris) is cut after requestTimeoutMs (408); fastify's default is never
    requestTimeout: config.requestTimeoutMs,
    // ids up to 128 characters reach the routes' own checks; what the router refuses is answered in protocol shape
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: createFrameworkErrorAnswer(ERROR_SCOPES_BY_PATH, openAiErrorHandler),
  });
  const drain = installGracefulDrain(app, { timeoutMs: config.shutdownTimeoutMs, logger: logger as FastifyBaseLogger });
  const specs = backendSpecs(config);
  refuseUnrenderableFleet(config, specs);
  const fleet = createBackendFleet({
    specs,
    // one keep-alive pool per replica, each with the gateway's timeouts and the replica's own key
    createClient: (spec) =>
      createVllmBackend({
        backendUrl: spec.url,
        backendKey: spec.key,
        headersTimeoutMs: config.backendHeadersTimeoutMs,
        bodyTimeoutMs: config.backendBodyTimeoutMs,
        connections: config.backendConnections,
        connectTimeoutMs: config.backendConnectTimeoutMs,
      }),
    logger: logger as FastifyBaseLogger,
    affinity: config.backendAffinity,
  });
  const backend = anyReplicaClient(fleet);
  const recorder = createRecorder({ config, store, storeGiven: givenStore !== undefined, logger: logger as FastifyBaseLogger });
  // a registry per gateway: several gateways in one process never clash (docs/reliability.md)
  const metrics = new GatewayMetrics({ recorder });
  registerFleetMetrics(metrics.registry, fleet);
  const rollouts = new RolloutControl({
    store,
    pauseMode: config.pauseMode,
    sessionIdleTimeoutMs: config.sessionIdleTimeoutMs,
    logger: logger as FastifyBaseLogger,
    // a call refused because the store cannot be read (PostgreSQL away) is a recording failure on /healthz and /metrics
    onStoreUnreadable: (error) => recorder.failedBeforeBegin(error),
  });
  registerRolloutReadMetrics(metrics.registry, rollouts.reads);
  const context: GatewayContext = {
    config,
    fleet,
    backend,
    recorder: logCallEnds(observeRecorder(recorder, metrics, fleet), logger as FastifyBaseLogger),
    rollouts,
    metrics,
    instanceId: instance.id,
  };
  if (config.tokenFaithful.length > 0) {
    context.tokenFaithful = createTokenFaithful({
      models: config.tokenFaithful,
      modelDir: config.modelDir,
      modelFamily: config.modelFamily,
      reasoningParser: config.reasoningParser,
      toolCallParser: config.toolCallParser,
      backend,
      logger: logger as FastifyBaseLogger,
      // a session's history this gateway lacks (a restart, another gateway served it) is rebuilt from the store
      store,
    });
  }
  registerRoutes(app, context, store, givenStore !== undefined);
  // a --model-dir that cannot render is refused at start, not at every call (TT_MODEL_DIR_INVALID); app.inject() too
  app.addHook('onReady', async () => context.tokenFaithful?.ready());
  // before the server waits for open requests: calls held by a pause are answered now, not after a resume
  app.addHook('preClose', async () => rollouts.close());
  let closeReport: GatewayCloseReport | null = null;
  app.addHook('onClose', async () => {
    // every connection is closed by now; the calls cut by the shutdown timeout still record their end
    const stillRunning = await drain.settled();
    const recorded = await recorder.close();
    closeReport = { unfinishedCalls: stillRunning + recorded.unfinishedCalls };
    // every call this gateway began is finished now
    instance.stop();
    await fleet.close();
    if (givenStore === undefined) store.close();
  });
  let listeningAt: string | undefined;
  return {
    ...createLocalRolloutApi(rollouts, () => config.publicUrl ?? listeningAt ?? `http://${config.host}:${config.port}`),
    app,
    store,
    config,
    recorder,
    async listen() {
      // before the backends are probed: a model folder that cannot render fails the start at once
      await context.tokenFaithful?.ready();
      await recorder.ready();
      // each replica is asked once what it is and whether it returns token ids, before the first call (docs/backends.md)
      await fleet.start();
      // a fleet opening 1,000 connections at once overflowed Node's default backlog of 511 (bench/load: client
      // connect timeouts); the kernel caps it at net.core.somaxconn
      const address = await app.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG });
      listeningAt = address.replace('://[::1]', '://localhost');
      for (const warning of publicBindWarnings(config)) {
        // a quiet embedding (no logger asked for) must still hear it: Node prints a process warning to stderr once
        if (givenLogger === undefined || givenLogger === false) process.emitWarning(warning, { code: 'TOKENTAP_PUBLIC_BIND' });
        else logger.warn({ host: config.host, requireSessionKey: config.requireSessionKey, adminToken: config.adminToken !== undefined }, warning);
      }
      return listeningAt;
    },
    close: () => app.close(),
    closeReport: () => (closeReport === null ? null : { ...closeReport }),
  };
}

/**
 * Token-faithful mode renders prompts with `modelDir`, or else with vLLM's `/tokenize`; SGLang has no chat-template
 * endpoint to render with, so a fleet with an SGLang replica needs `modelDir` for it (docs/backends.md).
 */
function refuseUnrenderableFleet(config: GatewayConfig, specs: readonly BackendSpec[]): void {
  if (config.tokenFaithful.length === 0 || config.modelDir !== undefined) return;
  const sglang = specs.find((spec) => spec.flavour === 'sglang');
  if (sglang === undefined) return;
  throw new TokentapError('TT_USAGE', {
    message: `token-faithful mode on an SGLang backend (${sglang.id}) needs --model-dir: SGLang has no endpoint that renders a chat template`,
  });
}

/** Which protocol's shape a URL's errors take before routing: the rollout API's under /tokentap/, Anthropic's under /v1/messages, OpenAI's elsewhere. */
const ERROR_SCOPES_BY_PATH: readonly PathErrorScope[] = [
  // the viewer's API (serve --ui) answers in the rollout API's shape too
  { matches: (path) => path.startsWith('/tokentap/') || path.startsWith('/ui/'), errors: adminErrorHandler },
  { matches: (path) => ANTHROPIC_MESSAGES_PATH.test(path), errors: anthropicErrorHandler },
];

/** Pending connections the kernel may queue before accept (Node's default is 511). */
const LISTEN_BACKLOG = 4096;

function registerRoutes(app: FastifyInstance, context: GatewayContext, store: Store, storeGiven: boolean): void {
  // every front door speaks JSON: a text/plain body is a client mistake (415), not a string to validate
  app.removeContentTypeParser('text/plain');
  // invalid UTF-8, nesting past maxJsonDepth and prototype keys are refused before any route reads the body
  registerJsonBodyParser(app, { maxDepth: context.config.maxJsonDepth });
  // a body refused while still arriving (413, 415) is read to its end or for a few seconds before the socket closes
  registerLingeringClose(app);
  // a Host that is not this gateway's (DNS rebinding) is 421 before anything else, the rate limit included
  registerHostCheck(app, context.config);
  if (context.config.rateLimit !== undefined) registerRateLimit(app, context, context.config.rateLimit);
  // /healthz, /metrics and the hooks counting every request and error answered
  registerObservabilityRoutes(app, context);
  openAiErrorHandler.setOn(app);
  for (const prefix of ['/v1', '/s/:sessionId/v1']) {
    void app.register(
      async (scope) => {
        openAiErrorHandler.setOn(scope);
        registerOpenAiChat(scope, context);
        registerOpenAiModels(scope, context);
        registerOpenAiResponses(scope, context);
        registerOpenAiCompletions(scope, context);
      },
      { prefix },
    );
  }
  registerAnthropicFrontDoor(app, context);
  registerAdminApi(app, context);
  if (context.config.ui) registerGatewayViewer(app, context, store, storeGiven);
}

/** The gateway's events that change what the viewer shows. */
const VIEWER_EVENTS: readonly GatewayEventName[] = ['call-end', 'session-end', 'group-complete'];

/**
 * `serve --ui`: the trajectory viewer at /ui over this gateway's store (docs/viewer.md), live on the gateway's own
 * events, its API behind authorizeViewer; token texts from `modelDir`'s tokenizer when there is one. Its API is
 * answered on the viewer's thread (`uiInWorker`) when the gateway opened its database itself.
 */
function registerGatewayViewer(app: FastifyInstance, context: GatewayContext, store: Store, storeGiven: boolean): void {
  const { config } = context;
  const thread = viewerThreadFor(config, storeGiven, app.log);
  if (thread !== null) app.addHook('onClose', async () => thread.close());
  registerViewer(app, {
    store,
    storeLocation: config.db,
    live: true,
    authorize: (request) => authorizeViewer(request, context),
    changes: (listener) => {
      const offs = VIEWER_EVENTS.map((name) => context.rollouts.events.on(name, () => listener()));
      return () => {
        for (const off of offs) off();
      };
    },
    ...(thread !== null
      ? { remote: thread }
      : config.modelDir === undefined
        ? {}
        : { tokenizer: loadViewerTokenizerLogged(config.modelDir, app.log) }),
  });
}

function loadViewerTokenizerLogged(modelDir: string, log: FastifyBaseLogger): Promise<ViewerTokenizer | undefined> {
  return loadViewerTokenizer(modelDir, (error) => log.warn({ err: error, modelDir }, UNUSABLE_TOKENIZER_MESSAGE));
}

/** The viewer's thread, or null where its API stays on this thread (`uiInWorker` off, a store passed in or in memory, sources never built). */
function viewerThreadFor(config: GatewayConfig, storeGiven: boolean, log: FastifyBaseLogger): ViewerThread | null {
  if (!config.uiInWorker || storeGiven || isInMemory(config.db)) return null;
  const workerUrl = viewerWorkerUrl();
  if (workerUrl === null) {
    log.warn("the viewer's API runs on the gateway thread: no compiled viewer thread (run npm run build)");
    return null;
  }
  return new ViewerThread({ db: config.db, modelDir: config.modelDir, log, workerUrl });
}
