import type { FinishCallInput } from '../../store/types.js';
import type { ChatTokenRecord } from '../backends/chat-token-record.js';
import type { TokentapError } from '../../core/errors/tokentap-error.js';
import type { BackendRetry } from '../backends/post-with-retries.js';
import { elidePromptIdsFromBody } from './elide-prompt-ids.js';
import { isWeightVersionMismatch } from './weight-version-mismatch.js';
import { wellFormedReasons } from './well-formed-reasons.js';

/** Wall-clock marks of one call, in ms since epoch. */
export interface CallTiming {
  startedAt: number;
  firstTokenAt: number | null;
}

const NO_TOKENS: ChatTokenRecord = {
  tokenSource: 'none',
  promptTokenIds: null,
  completionTokenIds: null,
  completionLogprobs: null,
  finishReason: null,
  stopReason: null,
  usage: null,
  flags: [],
  weightVersion: null,
};

function timingFields(timing: CallTiming): Pick<FinishCallInput, 'timeToFirstTokenMs' | 'totalMs' | 'endedAt'> {
  const endedAt = Date.now();
  return {
    timeToFirstTokenMs: timing.firstTokenAt === null ? null : timing.firstTokenAt - timing.startedAt,
    totalMs: endedAt - timing.startedAt,
    endedAt,
  };
}

export interface FinishDetails {
  status: FinishCallInput['status'];
  timing: CallTiming;
  tokens?: ChatTokenRecord | undefined;
  responseBody?: unknown;
  responseStream?: string | null;
  httpStatus: number | null;
  error?: TokentapError | undefined;
  /** the backend's own error body, when it sent one */
  backendErrorBody?: unknown;
  /** backend attempts given up on and sent again; recorded as `metadata.backendAttempts` and `backendRetries` */
  retries?: readonly BackendRetry[];
  /** the fleet id of the replica that served the call, when a failover moved it off the one named at begin */
  backendId?: string;
  /** the policy version the call began under (BeginCallInput.policyVersion), to check the backend's weight version against */
  policyVersion?: string | null;
  /** a call of a token-faithful model sent to the chat endpoint where it should not have been: flagged `token_faithful_fallback` */
  tokenFaithfulFallback?: boolean;
  /** keys merged into the call's metadata at its end (a failover's request, when another flavour served it) */
  metadata?: Record<string, unknown> | undefined;
}

/**
 * Builds the store's FinishCallInput for any ending: ok, backend error, abort. Tokens received before an
 * error or abort are kept, so an aborted call is recorded with what was sampled so far.
 *
 * @example recorder.finish(callId, finishInput({ status: 'ok', timing, tokens, responseBody, httpStatus: 200 }))
 */
export function finishInput(details: FinishDetails): FinishCallInput {
  // a lone surrogate the backend sent in finish_reason or stop_reason becomes U+FFFD, flagged
  const tokens = details.tokens === undefined ? NO_TOKENS : wellFormedReasons(details.tokens);
  const error = details.error;
  const weightVersion = tokens.weightVersion ?? null;
  const mismatch = isWeightVersionMismatch({ weightVersion, policyVersion: details.policyVersion ?? null });
  return {
    status: details.status,
    tokenSource: tokens.tokenSource,
    promptTokenIds: tokens.promptTokenIds,
    completionTokenIds: tokens.completionTokenIds,
    completionLogprobs: tokens.completionLogprobs,
    finishReason: tokens.finishReason,
    stopReason: tokens.stopReason,
    usage: tokens.usage,
    flags: [
      ...tokens.flags,
      ...(mismatch ? ['weight_version_mismatch' as const] : []),
      ...(details.tokenFaithfulFallback === true ? ['token_faithful_fallback' as const] : []),
    ],
    weightVersion,
    ...(details.backendId === undefined ? {} : { backendId: details.backendId }),
    responseBody: elidePromptIdsFromBody(details.responseBody ?? null),
    // the stream's prompt ids are elided by the recorder, on the thread that writes (batch-writer.ts)
    responseStream: details.responseStream ?? null,
    httpStatus: details.httpStatus,
    error: error === undefined ? null : { httpStatus: error.status, code: error.code, message: error.message, body: details.backendErrorBody },
    ...timingFields(details.timing),
    ...endMetadata(details),
  };
}

/** The keys an end adds to the call's metadata: its retries, and what the caller adds. */
function endMetadata(details: FinishDetails): Pick<FinishCallInput, 'metadata'> {
  const retries = retryMetadata(details.retries).metadata;
  if (details.metadata === undefined) return retries === undefined ? {} : { metadata: retries };
  return { metadata: { ...retries, ...details.metadata } };
}

/** Only a retried call carries retry metadata: the common call's row stays as it was. */
function retryMetadata(retries: readonly BackendRetry[] | undefined): Pick<FinishCallInput, 'metadata'> {
  if (retries === undefined || retries.length === 0) return {};
  const sent = retries.length + (retries.at(-1)?.cancelled === true ? 0 : 1);
  return { metadata: { backendAttempts: sent, backendRetries: retries.map((retry) => ({ ...retry })) } };
}
