import { existsSync, readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { loadHfTokenizer, qwen3TokenizerDir, type HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import { registerChatCompletions } from './handle-chat-completion.js';
import { registerCompletions } from './handle-completion.js';
import { registerServiceRoutes } from './service-routes.js';
import type { SimContext } from './sim-context.js';
import { simFaultSchema } from './sim-fault.js';
import type { SimGenerationRecord } from './sim-generation-record.js';
import { DEFAULT_MAX_MODEL_LEN, DEFAULT_MODEL_NAME, DEFAULT_SERVER_VERSION, type SimBackendOptions, type SimFamily } from './sim-options.js';
import { createScriptBook, parseSimScript, type SimScript } from './sim-script.js';
import { VllmError, vllmErrorBody } from './vllm-error.js';
import { registerSglangRoutes } from './sglang/register-sglang-routes.js';
import { setSglangErrorHandlers } from './sglang/sglang-error-handler.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

export type SimEventName = 'cancel' | 'generation';

/** A running simulated vLLM (or SGLang) server. */
export interface SimBackend {
  /** the fastify instance (use `app.inject()` in tests that need no socket) */
  app: FastifyInstance;
  /** listens (default 127.0.0.1:0); resolves to the base URL, e.g. `http://127.0.0.1:41234` */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** closes every connection, stalled ones included */
  close(): Promise<void>;
  /** one record per generation request, in arrival order */
  readonly log: SimGenerationRecord[];
  /** replaces the script (use counts start over); null removes it */
  setScript(script: SimScript | null): void;
  /** `generation`: a record was appended; `cancel`: a client closed its connection before the answer ended */
  on(event: SimEventName, listener: (record: SimGenerationRecord) => void): SimBackend;
  /** SGLang flavour: the weight version answers report from now on (as `POST /update_weight_version` sets it) */
  setWeightVersion(version: string): void;
}

/**
 * Builds the simulated vLLM backend: vLLM's OpenAI-compatible routes over the real Qwen3 tokenizer and
 * chat template, answering from a script or a seeded random policy, with faults on demand. The tokenizer is
 * loaded here (about a second, once per process) unless `fast` is set. `flavour: 'sglang'` serves SGLang's
 * routes instead (native `/generate`, its OpenAI-compatible endpoints and service routes).
 *
 * @example
 * const sim = await createSimBackend({ script: { replies: [{ content: 'Hi!' }] } });
 * const baseUrl = await sim.listen(); // point an OpenAI client at `${baseUrl}/v1`
 * await sim.close();
 */
export async function createSimBackend(options: SimBackendOptions = {}): Promise<SimBackend> {
  const context = createContext(options);
  if (!context.fast) await context.tokenizer();
  const logger = options.logger ?? false;
  const app = fastify({
    ...(typeof logger === 'boolean' ? { logger } : { loggerInstance: logger }),
    bodyLimit: 64 * 1024 * 1024,
    forceCloseConnections: true,
  });
  if (context.flavour === 'sglang') {
    setSglangErrorHandlers(app);
    registerSglangRoutes(app, context);
  } else {
    setErrorHandlers(app, context);
    registerChatCompletions(app, context);
    registerCompletions(app, context);
    registerServiceRoutes(app, context);
  }
  const backend: SimBackend = {
    app,
    log: context.log,
    async listen(listenOptions = {}) {
      const address = await app.listen({ port: listenOptions.port ?? 0, host: listenOptions.host ?? '127.0.0.1' });
      return address.replace('://[::1]', '://localhost');
    },
    async close() {
      context.closing = true;
      await app.close();
    },
    setScript(script) {
      context.script = script === null ? null : createScriptBook(parseSimScript(script));
    },
    on(event, listener) {
      context.events.on(event, listener);
      return backend;
    },
    setWeightVersion(version) {
      context.weightVersion = version;
    },
  };
  return backend;
}

function createContext(options: SimBackendOptions): SimContext {
  const tokenizerDir = options.tokenizerDir ?? qwen3TokenizerDir();
  let loaded: HfTokenizer | null = null;
  const tokensPerSecond = options.tokensPerSecond ?? 0;
  const streamInterval = options.streamInterval ?? 1;
  if (!Number.isInteger(streamInterval) || streamInterval < 1)
    throw new TokentapError('TT_INVALID_ARGUMENT', { message: `streamInterval must be a whole number from 1, got ${streamInterval}` });
  const flavour = options.flavour ?? 'vllm';
  return {
    flavour,
    incrementalStreamingOutput: options.incrementalStreamingOutput ?? false,
    weightVersion: options.weightVersion ?? 'default',
    serverVersion: options.serverVersion ?? DEFAULT_SERVER_VERSION,
    recentPrompts: [],
    modelName: options.modelName ?? DEFAULT_MODEL_NAME,
    acceptAnyModel: options.acceptAnyModel ?? false,
    seed: options.seed ?? 0,
    fast: options.fast ?? false,
    family: options.family ?? familyOfFolder(tokenizerDir),
    reasoningField: options.reasoningField ?? 'reasoning',
    // SGLang's ErrorResponse is the flat `{object: "error", message, type, param, code}`
    errorShape: flavour === 'sglang' ? 'flat' : (options.errorShape ?? 'nested'),
    dropStreamedToolCallIds: options.dropStreamedToolCallIds ?? false,
    unrequestedTokenIds: options.unrequestedTokenIds ?? 'null',
    tokenIntervalMs: tokensPerSecond > 0 ? 1000 / tokensPerSecond : 0,
    streamInterval,
    maxModelLen: options.maxModelLen ?? DEFAULT_MAX_MODEL_LEN,
    fault: options.fault === undefined ? null : simFaultSchema.parse(options.fault),
    async tokenizer() {
      loaded ??= await loadHfTokenizer(tokenizerDir);
      return loaded;
    },
    loadedTokenizer: () => loaded,
    script: options.script === undefined ? null : createScriptBook(parseSimScript(options.script)),
    log: [],
    logLimit: options.logLimit ?? (options.fast === true ? 1000 : Number.POSITIVE_INFINITY),
    events: new EventEmitter(),
    requestCount: 0,
    closing: false,
  };
}

/** Errors become vLLM-shaped responses here and nowhere else; unknown routes get FastAPI's 404 body. */
function setErrorHandlers(app: FastifyInstance, context: SimContext): void {
  app.setErrorHandler((error: FastifyError | VllmError, request, reply) => {
    let vllmError: VllmError;
    if (error instanceof VllmError) vllmError = error;
    // fastify's own 4xx (bad JSON, wrong content type, body too large): vLLM answers those 400
    else if (typeof error.statusCode === 'number' && error.statusCode < 500) vllmError = new VllmError(400, error.message);
    else {
      request.log.error({ err: error }, 'simulator failure');
      vllmError = new VllmError(500, error.message);
    }
    return reply
      .code(vllmError.status)
      .type('application/json')
      .send(JSON.stringify(vllmErrorBody(vllmError, context.errorShape)));
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).type('application/json').send('{"detail":"Not Found"}'));
}

/** `gpt-oss` when the folder's `config.json` says `gpt_oss`, `deepseek-v32` when it says `deepseek_v32` and there is no `chat_template.jinja` or when its `chat_template.jinja` has `<｜DSML｜function_calls>`, `deepseek-v3-first` when it writes the first V3 syntax (`'<｜tool▁sep｜>' + tool['function']['name']`), `deepseek-v3` when it has `<｜tool▁calls▁begin｜>`, `qwen3.5` when it is ChatML with `<function=` and `<think>`, `mistral` when it has `[TOOL_CALLS]`, `kimi-k2` when it has `<|tool_calls_section_begin|>` or `<|im_middle|>`, `glm45` when it has `<arg_key>` (not ChatML), `llama3` when it is Llama 3's (`<|start_header_id|>`), else `qwen3`. */
function familyOfFolder(directory: string): SimFamily {
  let config = '';
  try {
    config = readFileSync(path.join(directory, 'config.json'), 'utf8');
    if (config.includes('"gpt_oss"')) return 'gpt-oss';
  } catch {
    // no config.json: the template decides
  }
  // DeepSeek ships V3.2 without a template (vLLM renders it with DeepSeek's encoder): its own DSML
  if (config.includes('"deepseek_v32"') && !existsSync(path.join(directory, 'chat_template.jinja'))) return 'deepseek-v32';
  try {
    const template = readFileSync(path.join(directory, 'chat_template.jinja'), 'utf8');
    if (template.includes('<｜DSML｜function_calls>')) return 'deepseek-v32';
    if (template.includes("'<｜tool▁sep｜>' + tool['function']['name']")) return 'deepseek-v3-first';
    if (template.includes('<｜tool▁calls▁begin｜>')) return 'deepseek-v3';
    if (template.includes('<|im_start|>') && template.includes('<function=') && template.includes('<think>')) return 'qwen3.5';
    if (template.includes('[TOOL_CALLS]')) return 'mistral';
    // the first K2-Instruct template writes no call markers; every Kimi template writes <|im_middle|>
    if (template.includes('<|tool_calls_section_begin|>') || template.includes('<|im_middle|>')) return 'kimi-k2';
    if (template.includes('<arg_key>') && !template.includes('<|im_start|>')) return 'glm45';
    return template.includes('<|start_header_id|>') ? 'llama3' : 'qwen3';
  } catch {
    return 'qwen3';
  }
}
