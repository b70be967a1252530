import type { FinishCallInput } from '../../store/types.js';
import type { Recorder } from '../recorder/recorder.js';
import type { GatewayMetrics, ObservedCall } from './gateway-metrics.js';

/**
 * The recorder as the call pipeline sees it, with every call counted where it begins and ends: calls in flight,
 * calls by status, their timings, and errors sent inside streams. Every call is recorded, so observing the
 * recorder counts each call exactly once, whichever way it ended.
 *
 * @example context.recorder = observeRecorder(recorder, metrics)
 */
export function observeRecorder(recorder: Recorder, metrics: GatewayMetrics): Recorder {
  const open = new Map<string, ObservedCall>();
  const ended = (callId: string, result: FinishCallInput): ObservedCall | undefined => {
    const call = open.get(callId);
    if (call === undefined) return undefined;
    open.delete(callId);
    metrics.callEnded(call, result);
    return call;
  };
  return {
    get counters() {
      return recorder.counters;
    },
    begin(input) {
      const callId = recorder.begin(input);
      open.set(callId, { frontDoor: input.frontDoor, stream: input.stream });
      metrics.callStarted(input.frontDoor);
      return callId;
    },
    async finish(callId, result) {
      const call = ended(callId, result);
      try {
        await recorder.finish(callId, result);
      } catch (error) {
        // a stream refused for want of recording ends with an error event; a body refused is thrown and counted there
        if (call !== undefined && result.responseStream !== null && result.responseStream !== undefined)
          metrics.errorAnswered(call.frontDoor, 'TT_RECORDING_FAILED');
        throw error;
      }
    },
    async finishQuietly(callId, result) {
      ended(callId, result);
      await recorder.finishQuietly(callId, result);
    },
    ready: () => recorder.ready(),
    health: () => recorder.health(),
    close: () => recorder.close(),
  };
}
