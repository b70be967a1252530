import type { CallRow } from '../../store/types.js';

/** How a recorded completion ended, as far as its token ids are concerned. */
export type CallFinish =
  | {
      /** the model ended its turn (finish `stop` or `tool_calls`): a final end token was sampled */
      endsTurn: boolean;
      /** the stop token id that ended it (`stop_token_ids`), when the server says so; else the format's own */
      stopTokenId: number | null;
    }
  | { refusal: 'stop-string' | 'stop-unknown' | 'finish-reason'; detail: string };

/**
 * Reads the finish of a call: `finish_reason` from the call row (or the response's choice) and vLLM's
 * `stop_reason` from the choice (null = the end-of-turn token, a number = a stop token id, a string = a stop
 * string). A stop string ends a completion with tokens whose text the server cut off, so those ids cannot be
 * rebuilt; a server that reports no `stop_reason` while the request set stop strings or stop ids leaves the
 * ending unknown. Both are refused rather than guessed.
 *
 * @example
 * readCallFinish(call, { finish_reason: 'stop', stop_reason: null }, {}); // { endsTurn: true, stopTokenId: null }
 */
export function readCallFinish(call: CallRow, choice: Record<string, unknown>, request: Record<string, unknown>): CallFinish {
  const finishReason = call.finishReason ?? (typeof choice.finish_reason === 'string' ? choice.finish_reason : null);
  const stopReason = 'stop_reason' in choice ? choice.stop_reason : undefined;
  if (finishReason === 'stop' || finishReason === 'tool_calls') {
    if (typeof stopReason === 'string') {
      return { refusal: 'stop-string', detail: `ended on the stop string ${JSON.stringify(stopReason)}, whose tokens the server cut from the text` };
    }
    if (stopReason === undefined && setsStops(request)) {
      return { refusal: 'stop-unknown', detail: 'the request set stop strings or stop ids and the response does not say which one ended it' };
    }
    return { endsTurn: true, stopTokenId: typeof stopReason === 'number' ? stopReason : null };
  }
  // cut by max tokens, or never finished (aborted, cut stream): no end token was sampled
  if (finishReason === null || finishReason === 'length' || finishReason === 'abort') return { endsTurn: false, stopTokenId: null };
  return { refusal: 'finish-reason', detail: `unknown finish_reason ${JSON.stringify(finishReason)}` };
}

function setsStops(request: Record<string, unknown>): boolean {
  const stop = request.stop;
  const stopStrings = typeof stop === 'string' ? stop !== '' : Array.isArray(stop) && stop.some((entry) => entry !== '');
  const stopIds = Array.isArray(request.stop_token_ids) && request.stop_token_ids.length > 0;
  return stopStrings || stopIds;
}
