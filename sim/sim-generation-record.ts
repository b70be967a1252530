import type { ResolvedSimFault } from './sim-fault.js';

/**
 * What the simulator generated for one request, written from its own state before the response is
 * serialized, so tests can compare what a gateway stored against an independent record.
 */
export interface SimGenerationRecord {
  /** the response id (`chatcmpl-…` / `cmpl-…`; SGLang: the request's `rid`, 32 hex digits unless given) */
  requestId: string;
  /** `generate`: SGLang's native `POST /generate` */
  endpoint: 'chat' | 'completions' | 'generate';
  stream: boolean;
  /** the model name the response carries */
  model: string;
  promptTokenIds: number[];
  /** the rendered chat prompt or the completions prompt; null in fast mode or for token-id prompts */
  promptText: string | null;
  /** every generated id, end-of-turn included; a `cut-stream` client sees fewer */
  completionTokenIds: number[];
  /** the sampled token's logprob at each completion position (always computed, sent only when asked) */
  logprobs: number[];
  /** as reported: stop, length or tool_calls; null when no generation happened (errors, some faults) */
  finishReason: 'stop' | 'length' | 'tool_calls' | null;
  stopReason: string | number | null;
  /** the completion text as streamed (special tokens skipped), before reasoning and tool parsing */
  text: string;
  /** the parsed assistant message (chat only; null fields for completions) */
  reasoning: string | null;
  content: string | null;
  toolCalls: Array<{ name: string; arguments: string }>;
  /** the client closed the connection before the response was complete */
  cancelled: boolean;
  fault?: ResolvedSimFault;
  /** index of the script entry that answered, or null (policy, canned reply, error) */
  scriptEntry: number | null;
  /** HTTP status sent (0 when the socket was destroyed or headers were never sent) */
  status: number;
  /** the error message when the request was answered with an error */
  error?: string;
}

/**
 * A record for a request that ended before generation (validation error, refused, stalled).
 *
 * @example
 * const record = emptyRecord({ requestId, endpoint: 'chat', stream: false, model }); record.status = 400;
 */
export function emptyRecord(head: Pick<SimGenerationRecord, 'requestId' | 'endpoint' | 'stream' | 'model'>): SimGenerationRecord {
  return {
    ...head,
    promptTokenIds: [],
    promptText: null,
    completionTokenIds: [],
    logprobs: [],
    finishReason: null,
    stopReason: null,
    text: '',
    reasoning: null,
    content: null,
    toolCalls: [],
    cancelled: false,
    scriptEntry: null,
    status: 0,
  };
}
