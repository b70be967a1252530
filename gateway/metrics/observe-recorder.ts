import type { FinishCallInput } from '../../store/types.js';
import type { Recorder } from '../recorder/recorder.js';
import type { BackendFleet } from '../backends/fleet/fleet-types.js';
import type { GatewayMetrics, ObservedCall } from './gateway-metrics.js';

/**
 * The recorder as the call pipeline sees it, with every call counted where it begins and ends: calls in flight,
 * calls by status, their timings, and errors sent inside streams. Every call is recorded, so observing the
 * recorder counts each call exactly once, whichever way it ended.
 *
 * With a fleet, each ended call also feeds its replica's metrics (`fleet.observeCall`).
 *
 * @example context.recorder = observeRecorder(recorder, metrics, fleet)
 */
export function observeRecorder(recorder: Recorder, metrics: GatewayMetrics, fleet?: Pick<BackendFleet, 'observeCall'>): Recorder {
  const open = new Map<string, ObservedCall & { backendId: string | null }>();
  const ended = (callId: string, result: FinishCallInput): ObservedCall | undefined => {
    const call = open.get(callId);
    if (call === undefined) return undefined;
    open.delete(callId);
    metrics.callEnded(call, result);
    // the replica that served it (a failover's replaces the first pick): its time to first token and tokens/s
    const backendId = result.backendId ?? call.backendId;
    if (fleet !== undefined && backendId !== null) {
      fleet.observeCall(backendId, {
        timeToFirstTokenMs: result.timeToFirstTokenMs,
        totalMs: result.totalMs,
        completionTokens: result.completionTokenIds?.length ?? 0,
      });
    }
    return call;
  };
  return {
    get counters() {
      return recorder.counters;
    },
    begin(input) {
      const callId = recorder.begin(input);
      open.set(callId, { frontDoor: input.frontDoor, stream: input.stream, backendId: input.backendId ?? null });
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
    failedBeforeBegin: (error) => recorder.failedBeforeBegin(error),
    ready: () => recorder.ready(),
    health: () => recorder.health(),
    close: () => recorder.close(),
  };
}
