import type { GatewayContext } from '../gateway-context.js';
import type { StreamAssembler } from '../backends/stream-assembler.js';
import type { CallTiming } from '../recorder/finish-inputs.js';

/** What the pipeline hands to the error path: enough to record and to answer. */
export interface CallScope {
  context: GatewayContext;
  createAssembler: () => StreamAssembler;
  callId: string;
  timing: CallTiming;
  clientGone: () => boolean;
}
