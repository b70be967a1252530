import type { EventEmitter } from 'node:events';
import type { HfTokenizer } from '../model-format/tokenizer/load-hf-tokenizer.js';
import type { ResolvedSimFault } from './sim-fault.js';
import type { SimGenerationRecord } from './sim-generation-record.js';
import type { ReasoningField, SimFamily, SimFlavour } from './sim-options.js';
import type { ScriptBook } from './sim-script.js';
import type { ErrorShape } from './vllm-error.js';

/** Everything the route handlers share: resolved options, the lazy tokenizer, the script and the log. */
export interface SimContext {
  readonly flavour: SimFlavour;
  /** SGLang's `--incremental-streaming-output` */
  readonly incrementalStreamingOutput: boolean;
  /** SGLang's weight version; changed by `POST /update_weight_version` or `setWeightVersion` */
  weightVersion: string;
  /** the vLLM flavour's `/version` */
  readonly serverVersion: string;
  /** SGLang flavour: recent prompts, so `cached_tokens` reports the prefix a radix cache would hold */
  readonly recentPrompts: number[][];
  readonly modelName: string;
  readonly acceptAnyModel: boolean;
  readonly seed: number;
  readonly fast: boolean;
  /** whose output text completions are written in */
  readonly family: SimFamily;
  readonly reasoningField: ReasoningField;
  readonly errorShape: ErrorShape;
  readonly dropStreamedToolCallIds: boolean;
  readonly unrequestedTokenIds: 'null' | 'absent';
  /** milliseconds between streamed tokens; 0 means unpaced */
  readonly tokenIntervalMs: number;
  /** tokens per streamed chunk after the first (vLLM's `--stream-interval`) */
  readonly streamInterval: number;
  readonly maxModelLen: number;
  readonly fault: ResolvedSimFault | null;
  /** loads the tokenizer on first use (once per process per folder) */
  tokenizer(): Promise<HfTokenizer>;
  /** the tokenizer if it has loaded, else null (fast mode may never load it) */
  loadedTokenizer(): HfTokenizer | null;
  script: ScriptBook | null;
  readonly log: SimGenerationRecord[];
  /** the log keeps at most this many records */
  readonly logLimit: number;
  readonly events: EventEmitter;
  /** counts requests, to rotate fast mode's canned replies */
  requestCount: number;
  /** set by close(): connections torn down by the server are not client cancellations */
  closing: boolean;
}

const recorded = new WeakSet<SimGenerationRecord>();

/**
 * Appends a record to the log and announces it.
 *
 * @example
 * appendRecord(context, record); // listeners of 'generation' get it
 */
export function appendRecord(context: SimContext, record: SimGenerationRecord): void {
  recorded.add(record);
  context.log.push(record);
  if (context.log.length > context.logLimit) context.log.splice(0, context.log.length - context.logLimit);
  context.events.emit('generation', record);
}

/** @example if (!isRecorded(context, record)) appendRecord(context, record); */
export function isRecorded(_context: SimContext, record: SimGenerationRecord): boolean {
  return recorded.has(record);
}
