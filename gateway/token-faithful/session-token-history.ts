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

/** One session's kept calls, and the store's newest calls it was last checked against. */
interface SessionCalls {
  /** oldest first */
  entries: TokenHistoryEntry[];
  /** ids the store listed for the session at the last restore (restore-token-history.ts), kept or not */
  stored: ReadonlySet<string>;
}

/**
 * Each session's recent calls with their exact token ids, in memory, bounded: the newest calls of a session, and
 * a budget of ids over all sessions (about 4 bytes each) that evicts whole sessions, least recently used first.
 * What is not here (a restart, a session another gateway served, an evicted session) is rebuilt from the store
 * (`restore`, restore-token-history.ts).
 *
 * @example
 * const history = new SessionTokenHistory();
 * history.remember('run-1', entry); history.entries('run-1'); // [entry]
 */
export class SessionTokenHistory {
  readonly limits: SessionTokenHistoryLimits;
  /** Map order is recency: a session is moved to the end when used */
  readonly #sessions = new Map<string, SessionCalls>();
  #tokens = 0;

  constructor(limits: SessionTokenHistoryLimits = DEFAULT_TOKEN_HISTORY_LIMITS) {
    this.limits = limits;
  }

  /** ids held now, over all sessions */
  get tokenCount(): number {
    return this.#tokens;
  }

  /** The session's kept calls, oldest first. */
  entries(sessionId: string): readonly TokenHistoryEntry[] {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return [];
    this.#sessions.delete(sessionId);
    this.#sessions.set(sessionId, session);
    return session.entries;
  }

  /** Whether the session's history has seen this call: kept, or listed by the store at the last restore. */
  knows(sessionId: string, callId: string): boolean {
    const session = this.#sessions.get(sessionId);
    return session !== undefined && (session.stored.has(callId) || session.entries.some((entry) => entry.callId === callId));
  }

  /** Keeps a call (replacing a kept entry of the same call: a restore may have read it back first). */
  remember(sessionId: string, entry: TokenHistoryEntry): void {
    const session = this.#take(sessionId);
    this.#drop(session, (kept) => kept.callId === entry.callId);
    session.entries.push(entry);
    this.#tokens += sizeOf(entry);
    this.#keep(sessionId, session);
  }

  /**
   * Merges what the store holds of a session: `storedIds` are its newest calls, oldest first (the store's window),
   * `rebuilt` the entries read back for those not kept here (a call that gave no entry is left out). Kept entries
   * outside the window stay, before it; the result is trimmed to the newest `callsPerSession`.
   */
  restore(sessionId: string, storedIds: readonly string[], rebuilt: ReadonlyMap<string, TokenHistoryEntry>): void {
    const session = this.#take(sessionId);
    const window = new Set(storedIds);
    const byId = new Map(session.entries.map((entry) => [entry.callId, entry]));
    const outside = session.entries.filter((entry) => !window.has(entry.callId));
    const inside = storedIds.flatMap((callId) => {
      const entry = byId.get(callId) ?? rebuilt.get(callId);
      return entry === undefined ? [] : [entry];
    });
    for (const entry of rebuilt.values()) if (!byId.has(entry.callId)) this.#tokens += sizeOf(entry);
    session.entries = [...outside, ...inside];
    session.stored = window;
    this.#keep(sessionId, session);
  }

  /** The session's record, out of the recency order until #keep puts it back at the end. */
  #take(sessionId: string): SessionCalls {
    const session = this.#sessions.get(sessionId) ?? { entries: [], stored: new Set<string>() };
    this.#sessions.delete(sessionId);
    return session;
  }

  #keep(sessionId: string, session: SessionCalls): void {
    while (session.entries.length > this.limits.callsPerSession) this.#tokens -= sizeOf(session.entries.shift()!);
    this.#sessions.set(sessionId, session);
    this.#evict(sessionId);
  }

  #drop(session: SessionCalls, matches: (entry: TokenHistoryEntry) => boolean): void {
    for (const entry of session.entries) if (matches(entry)) this.#tokens -= sizeOf(entry);
    session.entries = session.entries.filter((entry) => !matches(entry));
  }

  #evict(keep: string): void {
    for (const [sessionId, session] of this.#sessions) {
      if (this.#tokens <= this.limits.maxTokens) return;
      if (sessionId === keep) continue;
      for (const entry of session.entries) this.#tokens -= sizeOf(entry);
      this.#sessions.delete(sessionId);
    }
    // one session alone over the budget keeps only its newest call
    const own = this.#sessions.get(keep)?.entries;
    while (own !== undefined && own.length > 1 && this.#tokens > this.limits.maxTokens) this.#tokens -= sizeOf(own.shift()!);
  }
}

function sizeOf(entry: TokenHistoryEntry): number {
  return entry.promptIds.length + entry.completionIds.length;
}
