import type { FastifyBaseLogger } from 'fastify';
import type { SimFault } from './sim-fault.js';
import type { SimScript } from './sim-script.js';
import type { ErrorShape } from './vllm-error.js';

/** Which field carries reasoning: `reasoning` (vLLM ≥ PR #27752), `reasoning_content` (older), or both. */
export type ReasoningField = 'reasoning' | 'reasoning_content' | 'both';

/** Which server the simulator is: vLLM's OpenAI-compatible API, or SGLang (native `/generate` and its OpenAI routes). */
export type SimFlavour = 'vllm' | 'sglang';

/** The model families the simulator writes output text for. */
export type SimFamily =
  'qwen3' | 'qwen3.5' | 'llama3' | 'deepseek-v3' | 'deepseek-v3-first' | 'deepseek-v32' | 'gpt-oss' | 'mistral' | 'glm45' | 'kimi-k2';

export interface SimBackendOptions {
  /** `vllm` (default) or `sglang`: SGLang's routes, fields and errors (see docs/sim.md, "The SGLang flavour") */
  flavour?: SimFlavour;
  /** SGLang's `--incremental-streaming-output`: streamed `/generate` frames carry only what is new. Default false */
  incrementalStreamingOutput?: boolean;
  /** SGLang's `--weight-version`, reported in `meta_info` and `metadata`; `POST /update_weight_version` changes it. Default `default` */
  weightVersion?: string;
  /**
   * what the vLLM flavour's `GET /version` says. Default `0.11.0+tokentap.sim`: the sim speaks vLLM's wire as of 0.11
   * (return_token_ids, nested errors). A version the gateway cannot read (`dev`) makes its start-up probe generate a token
   */
  serverVersion?: string;
  /** the served model name; requests naming another model get vLLM's 404. Default `Qwen/Qwen3-8B` */
  modelName?: string;
  /** answer requests for any model name instead of 404 (the response still names `modelName`) */
  acceptAnyModel?: boolean;
  /** a Hugging Face model folder with tokenizer.json + tokenizer_config.json. Default: the bundled Qwen3 one */
  tokenizerDir?: string;
  /**
   * whose native output text the completions are written in (docs/model-families.md): `qwen3` (`<think>`, Hermes
   * `<tool_call>`), `qwen3.5` (reasoning after the prompt's `<think>`, Qwen3-Coder XML calls; also for a ChatML template with
   * `<function=` and `<think>`), `llama3` (JSON tool calls), `deepseek-v3` (`<｜tool▁calls▁begin｜>` sections, `</think>`), `deepseek-v3-first`
   * (the first V3 syntax, `function<｜tool▁sep｜>NAME` and fenced JSON; also for a template writing it),
   * `deepseek-v32` (V3.2's DSML `<｜DSML｜function_calls>`; also for a template with it, or a `config.json` saying `deepseek_v32` without `chat_template.jinja`), `gpt-oss`
   * (Harmony), `glm45` (`<tool_call>NAME` + `<arg_key>` pairs, also for a template with `<arg_key>`), `kimi-k2`
   * (`<|tool_calls_section_begin|>`, also for a template with it) or `mistral` (`[TOOL_CALLS] [...]`, also when the folder's `chat_template.jinja` has `[TOOL_CALLS]`); `deepseek-v3` also when the folder's `chat_template.jinja` has `<｜tool▁calls▁begin｜>`. Default: `llama3` when the tokenizer folder's
   * `chat_template.jinja` has Llama 3's `<|start_header_id|>`, `gpt-oss` when its `config.json` says `model_type: gpt_oss`,
   * else `qwen3`
   */
  family?: SimFamily;
  /** scripted replies and faults; without one (or when none matches) the seeded policy answers */
  script?: SimScript;
  /** seeds the random policy and the logprobs. Default 0 */
  seed?: number;
  /** benchmark mode: no template or tokenizer per request, canned pre-tokenized replies */
  fast?: boolean;
  reasoningField?: ReasoningField;
  /** error body shape. Default `nested` (vLLM ≥ 0.10.1) */
  errorShape?: ErrorShape;
  /**
   * Old vLLM (before PR #29074): streamed tokens the tool/reasoning parser swallowed were never sent, so the
   * joined `token_ids` come out shorter than `usage.completion_tokens`.
   */
  dropStreamedToolCallIds?: boolean;
  /**
   * What token-id fields look like when `return_token_ids` was not asked: `null` (vLLM ≥ 0.10.2 sets them
   * explicitly, so they serialize as null) or `absent` (older vLLM, before the fields existed). Default `null`.
   */
  unrequestedTokenIds?: 'null' | 'absent';
  /** paces streams (and delays non-streamed answers) to this many tokens per second. Default unpaced */
  tokensPerSecond?: number;
  /**
   * vLLM's `--stream-interval N` (SGLang has the same flag): after the first token, a streamed chunk carries N
   * tokens (their ids, logprobs and text), the rest going out when the request finishes. Default 1: a chunk per
   * token. Note that vLLM merges chunks even at 1 when its frontend falls behind the engine.
   */
  streamInterval?: number;
  /** context window (prompt + completion). Default 40960 (Qwen3-8B) */
  maxModelLen?: number;
  /** a fault acted out on every generation request (script entries' own faults win) */
  fault?: SimFault;
  /** keep at most this many records in `log`, dropping the oldest. Default: all, 1000 in fast mode */
  logLimit?: number;
  /** fastify logger options or instance. Default: no logging */
  logger?: boolean | FastifyBaseLogger;
}

export const DEFAULT_MODEL_NAME = 'Qwen/Qwen3-8B';
export const DEFAULT_SERVER_VERSION = '0.11.0+tokentap.sim';
export const DEFAULT_MAX_MODEL_LEN = 40960;
/** vLLM's default `--max-logprobs` */
export const MAX_LOGPROBS = 20;
