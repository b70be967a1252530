import type { GatewayContext } from '../gateway-context.js';
import type { StreamAssembler } from '../backends/stream-assembler.js';
import type { CallTiming } from '../recorder/finish-inputs.js';
import type { BackendRetry } from '../backends/post-with-retries.js';

/** What the pipeline hands to the error path: enough to record and to answer. */
export interface CallScope {
  context: GatewayContext;
  createAssembler: () => StreamAssembler;
  callId: string;
  timing: CallTiming;
  clientGone: () => boolean;
  /** backend attempts given up on and sent again, recorded with the call's end */
  backendRetries: BackendRetry[];
  /** tokentap's policy version the call is served under (a backend reporting another weight version is flagged) */
  policyVersion: string | null;
  /** the replica serving the call: the first one picked, then the one that answered */
  backendId: string | null;
  /** the code the call ended with when it failed (the replica's outcome), null while it has not */
  failureCode: string | null;
  /** a call of a token-faithful model that went to the chat endpoint where it should not have: flagged `token_faithful_fallback` */
  tokenFaithfulFallback: boolean;
  /** metadata the call's end adds (the request a failover sent, when it differs from the one recorded at begin) */
  endMetadata?: Record<string, unknown>;
}

/**
 * What a call's end records about how it was served: the replica that served it, the policy version its weight
 * version is checked against, and whether token-faithful mode fell back to the chat endpoint.
 *
 * @example finishInput({ status: 'ok', ...recorded, ...callBackend(scope) })
 */
export function callBackend(scope: CallScope): {
  backendId?: string;
  policyVersion: string | null;
  tokenFaithfulFallback: boolean;
  metadata?: Record<string, unknown>;
} {
  return {
    ...(scope.backendId === null ? {} : { backendId: scope.backendId }),
    policyVersion: scope.policyVersion,
    tokenFaithfulFallback: scope.tokenFaithfulFallback,
    ...(scope.endMetadata === undefined ? {} : { metadata: scope.endMetadata }),
  };
}
