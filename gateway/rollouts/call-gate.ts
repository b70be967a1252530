import { TokentapError } from '../../core/errors/tokentap-error.js';

export type PauseMode = 'hold' | 'reject';

/** The Retry-After sent while rejecting, unless the pause says otherwise (Agent Lightning's default too). */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** What admission said: admitted (possibly after waiting out a pause) or the harness left while held. */
export type Admission = 'admitted' | 'admitted-after-hold' | 'left';

/**
 * Pause and drain for weight updates (docs/rollouts.md). Every model call passes `admit` before anything is
 * recorded and `release` once its answer is written; between the two it is in flight. While paused, new calls
 * are held until `resume` (mode `hold`) or refused with TT_PAUSED, a 429 with Retry-After (mode `reject`).
 * A held call is not recorded until it is admitted, so a harness that gives up while held leaves nothing behind,
 * and a call is never admitted twice: none is lost or duplicated across a pause. Pausing twice and resuming
 * when not paused change nothing.
 *
 * @example
 * gate.pause({ mode: 'hold' });
 * await gate.waitForDrain(60_000); // in-flight calls finished; update the weights now
 * gate.resume();
 */
export class CallGate {
  readonly #inFlight = new Map<string, string>();
  #paused = false;
  #mode: PauseMode;
  #retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS;
  #pausedAt: number | null = null;
  #resumedAt: number | null = null;
  #held = 0;
  #closed = false;
  #wakeHeld: Array<() => void> = [];
  #wakeDrain: Array<() => void> = [];

  constructor(defaultMode: PauseMode) {
    this.#mode = defaultMode;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /** the Retry-After a rejected call is sent */
  get retryAfterSeconds(): number {
    return this.#retryAfterSeconds;
  }

  /** when the last pause ended (idle timeouts do not count a pause against a session) */
  get resumedAt(): number | null {
    return this.#resumedAt;
  }

  /**
   * Waits out a pause (mode `hold`) or throws TT_PAUSED (mode `reject`), then counts the call in flight.
   * Answers `left` when `signal` aborts while held: the harness went away and nothing was admitted.
   */
  async admit(callId: string, sessionId: string, signal: AbortSignal): Promise<Admission> {
    let held = false;
    while (this.#paused && !this.#closed) {
      if (this.#mode === 'reject') throw this.#pausedError();
      held = true;
      this.#held++;
      try {
        await this.#untilWoken(signal);
      } finally {
        this.#held--;
      }
      if (signal.aborted) return 'left';
    }
    if (this.#closed) throw new TokentapError('TT_SHUTTING_DOWN');
    this.#inFlight.set(callId, sessionId);
    return held ? 'admitted-after-hold' : 'admitted';
  }

  /** The call is over (answered, failed or abandoned). Releasing an unknown id is a no-op. */
  release(callId: string): void {
    if (!this.#inFlight.delete(callId) || this.#inFlight.size > 0) return;
    for (const wake of this.#wakeDrain.splice(0)) wake();
  }

  /** whether a call of this session is in flight */
  isSessionBusy(sessionId: string): boolean {
    for (const owner of this.#inFlight.values()) if (owner === sessionId) return true;
    return false;
  }

  /** Pauses new calls; pausing while paused only updates the mode and Retry-After for calls still to come. */
  pause(options: { mode?: PauseMode | undefined; retryAfterSeconds?: number | undefined } = {}): void {
    if (options.mode !== undefined) this.#mode = options.mode;
    if (options.retryAfterSeconds !== undefined) this.#retryAfterSeconds = options.retryAfterSeconds;
    if (this.#paused) return;
    this.#paused = true;
    this.#pausedAt = Date.now();
  }

  /** Releases held calls; resuming when not paused is a no-op. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#pausedAt = null;
    this.#resumedAt = Date.now();
    for (const wake of this.#wakeHeld.splice(0)) wake();
  }

  /** Resolves true once no call is in flight, or false after `timeoutMs`. */
  waitForDrain(timeoutMs: number): Promise<boolean> {
    if (this.#inFlight.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wakeDrain = this.#wakeDrain.filter((wake) => wake !== done);
        resolve(false);
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#wakeDrain.push(done);
    });
  }

  state(): {
    paused: boolean;
    pauseMode: PauseMode;
    retryAfterSeconds: number;
    pausedAt: number | null;
    inFlight: { count: number; callIds: string[] };
    held: number;
  } {
    return {
      paused: this.#paused,
      pauseMode: this.#mode,
      retryAfterSeconds: this.#retryAfterSeconds,
      pausedAt: this.#pausedAt,
      inFlight: { count: this.#inFlight.size, callIds: [...this.#inFlight.keys()] },
      held: this.#held,
    };
  }

  /** At shutdown: held calls are answered TT_SHUTTING_DOWN instead of waiting for a resume that never comes. */
  close(): void {
    this.#closed = true;
    for (const wake of this.#wakeHeld.splice(0)) wake();
  }

  #pausedError(): TokentapError {
    return new TokentapError('TT_PAUSED', { message: `tokentap is paused for a weight update; retry after ${this.#retryAfterSeconds} s` });
  }

  #untilWoken(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.#wakeHeld = this.#wakeHeld.filter((entry) => entry !== wake);
        resolve();
      };
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#wakeHeld.push(wake);
    });
  }
}
