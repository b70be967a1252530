import type { Store } from '../../store/index.js';
import type { CallGate } from './call-gate.js';

export interface IdleSweeperOptions {
  store: Pick<Store, 'listIdleRollouts'>;
  gate: CallGate;
  /** ms without a call after which an open rollout session ends; 0 turns sweeping off */
  timeoutMs: number;
  /** ends one idle session (as `aborted`, reason `idle-timeout`) */
  endIdle: (sessionId: string) => void;
  /** a sweep on the timer could not read the store (PostgreSQL restarting): the next one tries again */
  onError?: (error: unknown) => void;
}

export interface IdleSweeper {
  /** a call of the session was admitted or finished: it is not idle */
  touch(sessionId: string): void;
  /** the session ended: stop tracking it */
  forget(sessionId: string): void;
  /** ends every session idle for longer than the timeout (run on a timer; callable directly) */
  sweep(): void;
  stop(): void;
}

/**
 * Ends rollout sessions (origin `api`) whose harness went quiet: no call for `timeoutMs`, none in flight. The
 * store's `activity_at` (start of the newest call) is the floor; calls finishing and calls admitted since are
 * tracked here, since a long stream's session is busy, not idle. Nothing is swept while paused, and a pause
 * does not count against a session (its calls were held, not idle).
 *
 * @example
 * const sweeper = startIdleSweeper({ store, gate, timeoutMs: 1_800_000, endIdle: (id) => control.endIdle(id) });
 */
export function startIdleSweeper(options: IdleSweeperOptions): IdleSweeper {
  const { store, gate, timeoutMs } = options;
  const lastActivity = new Map<string, number>();
  const sweep = (): void => {
    if (timeoutMs === 0 || gate.paused) return;
    const idleSince = Date.now() - timeoutMs;
    for (const sessionId of store.listIdleRollouts(idleSince)) {
      const last = Math.max(lastActivity.get(sessionId) ?? 0, gate.resumedAt ?? 0);
      if (last > idleSince || gate.isSessionBusy(sessionId)) continue;
      lastActivity.delete(sessionId);
      options.endIdle(sessionId);
    }
  };
  // half the timeout between sweeps (a session ends at most 1.5 timeouts after its last call), within 10 ms..5 s
  // a timer's exception would end the gateway's process: a store away for a moment only skips that sweep
  const sweepOnTimer = (): void => {
    try {
      sweep();
    } catch (error) {
      options.onError?.(error);
    }
  };
  const timer = timeoutMs === 0 ? null : setInterval(sweepOnTimer, Math.min(5_000, Math.max(10, Math.floor(timeoutMs / 2))));
  timer?.unref();
  return {
    touch: (sessionId) => {
      if (timeoutMs !== 0) lastActivity.set(sessionId, Date.now());
    },
    forget: (sessionId) => void lastActivity.delete(sessionId),
    sweep,
    stop: () => {
      if (timer !== null) clearInterval(timer);
    },
  };
}
