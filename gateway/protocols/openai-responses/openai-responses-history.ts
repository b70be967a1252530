import type { GatewayContext } from '../../gateway-context.js';

/** Responses remembered for `previous_response_id`, across all sessions, oldest forgotten first. */
export const DEFAULT_RESPONSE_HISTORY_LIMIT = 1000;

interface RememberedResponse {
  sessionId: string;
  /** the conversation up to and including this response: resolved input items, then output items */
  items: readonly unknown[];
}

/**
 * The conversation behind each response tokentap produced, kept in memory so a harness can continue with
 * `previous_response_id` instead of resending the input. Bounded (an LRU of `limit` responses); it does not
 * survive a restart, and a response is only found from the session that produced it. Entries share their item
 * objects with the entries they extend, so a chain of N turns costs N arrays of references, not N copies.
 *
 * @example
 * history.remember('run-1', 'resp_1', [...input, ...output]);
 * history.recall('run-1', 'resp_1'); // the items, or undefined
 */
export class ResponseHistory {
  readonly #entries = new Map<string, RememberedResponse>();
  readonly #limit: number;

  constructor(limit = DEFAULT_RESPONSE_HISTORY_LIMIT) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  remember(sessionId: string, responseId: string, items: readonly unknown[]): void {
    this.#entries.delete(responseId);
    this.#entries.set(responseId, { sessionId, items });
    // a Map iterates in insertion order: the first key is the least recently used
    while (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  recall(sessionId: string, responseId: string): readonly unknown[] | undefined {
    const entry = this.#entries.get(responseId);
    if (entry === undefined || entry.sessionId !== sessionId) return undefined;
    this.#entries.delete(responseId);
    this.#entries.set(responseId, entry);
    return entry.items;
  }
}

const histories = new WeakMap<GatewayContext, ResponseHistory>();

/**
 * The history of one gateway (one per context, shared by the `/v1` and `/s/:sessionId/v1` routes).
 * @example const history = responseHistoryFor(context)
 */
export function responseHistoryFor(context: GatewayContext): ResponseHistory {
  let history = histories.get(context);
  if (history === undefined) {
    history = new ResponseHistory();
    histories.set(context, history);
  }
  return history;
}
