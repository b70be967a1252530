import type { FastifyBaseLogger } from 'fastify';
import type { BeginCallInput, FinishCallInput } from '../../store/types.js';
import { isRecord } from '../../core/json/is-record.js';
import type { Recorder } from '../recorder/recorder.js';

/** What a call's line needs from its begin. */
type BegunCall = Pick<BeginCallInput, 'sessionId' | 'frontDoor' | 'stream' | 'requestedModel' | 'backendModel'>;

/**
 * The recorder as the call pipeline sees it, with one info line per call when it ends, whichever front door, streamed
 * or not, answered, failed or aborted (every call is recorded, so every call ends here exactly once): `call ended`
 * with the session, the call id, the front door, the model asked for and the one that answered, the recorded status,
 * the error code and the start of its message if any, prompt and sampled token counts, time to first token, total time, flags and token source.
 * The line is written once the end is committed (or refused: then `recordingFailed`); a call's failure is not
 * logged again at info by its front door's error handler (errors/mark-call-request.ts).
 *
 * @example context.recorder = logCallEnds(observeRecorder(recorder, metrics), logger)
 */
export function logCallEnds(recorder: Recorder, logger: FastifyBaseLogger): Recorder {
  const open = new Map<string, BegunCall>();
  const log = (callId: string, result: FinishCallInput, recordingFailed: boolean): void => {
    const call = open.get(callId);
    if (call === undefined) return;
    open.delete(callId);
    logger.info(callLine(callId, call, result, recordingFailed), 'call ended');
  };
  return {
    get counters() {
      return recorder.counters;
    },
    begin(input) {
      const callId = recorder.begin(input);
      open.set(callId, {
        sessionId: input.sessionId,
        frontDoor: input.frontDoor,
        stream: input.stream,
        requestedModel: input.requestedModel,
        backendModel: input.backendModel,
      });
      return callId;
    },
    async finish(callId, result) {
      try {
        await recorder.finish(callId, result);
      } catch (error) {
        log(callId, result, true);
        throw error;
      }
      log(callId, result, false);
    },
    async finishQuietly(callId, result) {
      await recorder.finishQuietly(callId, result);
      log(callId, result, false);
    },
    failedBeforeBegin: (error) => recorder.failedBeforeBegin(error),
    ready: () => recorder.ready(),
    health: () => recorder.health(),
    close: () => recorder.close(),
  };
}

/** A backend's error message can quote the whole request; a log line keeps its start. */
const MAX_ERROR_MESSAGE = 300;

/** The fields of a call's line: counts and names only, never a body, a prompt or a key. */
function callLine(callId: string, call: BegunCall, result: FinishCallInput, recordingFailed: boolean): Record<string, unknown> {
  const errorCode = recordingFailed ? 'TT_RECORDING_FAILED' : result.error?.code;
  return {
    sessionId: call.sessionId,
    callId,
    frontDoor: call.frontDoor,
    stream: call.stream,
    model: call.requestedModel,
    // the name the backend's answer gives (vLLM: the served model name), else the one tokentap sent
    servedModel: servedModelOf(result.responseBody) ?? call.backendModel,
    status: result.status,
    httpStatus: result.httpStatus,
    ...(errorCode === undefined ? {} : { errorCode }),
    ...(result.error === null ? {} : { errorMessage: result.error.message.slice(0, MAX_ERROR_MESSAGE) }),
    ...(recordingFailed ? { recordingFailed } : {}),
    promptTokens: result.promptTokenIds?.length ?? null,
    sampledTokens: result.completionTokenIds?.length ?? null,
    timeToFirstTokenMs: result.timeToFirstTokenMs,
    totalMs: result.totalMs,
    flags: result.flags,
    tokenSource: result.tokenSource,
  };
}

function servedModelOf(body: unknown): string | undefined {
  return isRecord(body) && typeof body.model === 'string' ? body.model : undefined;
}
