/** What the gateway keeps of one finished call, to extend it later. */
export interface TokenHistoryEntry {
  callId: string;
  /** prefix hashes (conversation-hashes.ts) of the call's messages and then of the assistant message it returned */
  prefixHashes: string[];
  /** renderSettingsKey of the call's request, joined */
  settings: string;
  promptIds: readonly number[];
  completionIds: readonly number[];
  /** the sampled id that ended the assistant turn (EOS or a stop token id); null when the completion was cut */
  endOfTurnId: number | null;
}

export interface SessionTokenHistoryLimits {
  /** calls kept per session (the newest) */
  callsPerSession: number;
  /** token ids kept across all sessions; the least recently used sessions go first */
  maxTokens: number;
}

export const DEFAULT_TOKEN_HISTORY_LIMITS: SessionTokenHistoryLimits = { callsPerSession: 16, maxTokens: 32_000_000 };

/**
 * Each session's recent calls with their exact token ids, in memory, bounded: the newest calls of a session, and
 * a budget of ids over all sessions (about 4 bytes each) that evicts whole sessions, least recently used first.
 * Nothing survives a restart: the first call of a session after one is rendered fresh.
 *
 * @example
 * const history = new SessionTokenHistory();
 * history.remember('run-1', entry); history.entries('run-1'); // [entry]
 */
export class SessionTokenHistory {
  readonly #limits: SessionTokenHistoryLimits;
  /** Map order is recency: a session is moved to the end when used */
  readonly #sessions = new Map<string, TokenHistoryEntry[]>();
  #tokens = 0;

  constructor(limits: SessionTokenHistoryLimits = DEFAULT_TOKEN_HISTORY_LIMITS) {
    this.#limits = limits;
  }

  /** ids held now, over all sessions */
  get tokenCount(): number {
    return this.#tokens;
  }

  /** The session's kept calls, oldest first. */
  entries(sessionId: string): readonly TokenHistoryEntry[] {
    const entries = this.#sessions.get(sessionId);
    if (entries === undefined) return [];
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, entries);
    return entries;
  }

  remember(sessionId: string, entry: TokenHistoryEntry): void {
    const entries = this.#sessions.get(sessionId) ?? [];
    this.#sessions.delete(sessionId);
    entries.push(entry);
    this.#tokens += sizeOf(entry);
    while (entries.length > this.#limits.callsPerSession) this.#tokens -= sizeOf(entries.shift()!);
    this.#sessions.set(sessionId, entries);
    this.#evict(sessionId);
  }

  #evict(keep: string): void {
    for (const [sessionId, entries] of this.#sessions) {
      if (this.#tokens <= this.#limits.maxTokens) return;
      if (sessionId === keep) continue;
      for (const entry of entries) this.#tokens -= sizeOf(entry);
      this.#sessions.delete(sessionId);
    }
    // one session alone over the budget keeps only its newest call
    const own = this.#sessions.get(keep);
    while (own !== undefined && own.length > 1 && this.#tokens > this.#limits.maxTokens) this.#tokens -= sizeOf(own.shift()!);
  }
}

function sizeOf(entry: TokenHistoryEntry): number {
  return entry.promptIds.length + entry.completionIds.length;
}
