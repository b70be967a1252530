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
}
