import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { GroupInfo } from './rollout-api.js';

interface Waiter {
  resolve: (group: GroupInfo) => void;
  reject: (error: unknown) => void;
}

/**
 * Who waits for which group to complete. The rollout control settles them when a session end (or a late
 * declaration) completes a group; a wait that starts after completion never gets here (the caller checks first).
 *
 * @example
 * const group = await waits.wait('task-7', signal); // settled by waits.complete(groupInfo)
 */
export class GroupWaits {
  readonly #waiters = new Map<string, Set<Waiter>>();

  wait(groupId: string, signal?: AbortSignal): Promise<GroupInfo> {
    return new Promise((resolve, reject) => {
      const waiters = this.#waiters.get(groupId) ?? new Set<Waiter>();
      this.#waiters.set(groupId, waiters);
      const onAbort = (): void => {
        waiters.delete(waiter);
        reject(signal?.reason ?? new Error('aborted'));
      };
      const waiter: Waiter = {
        resolve: (group) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(group);
        },
        reject,
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.add(waiter);
    });
  }

  complete(group: GroupInfo): void {
    const waiters = this.#waiters.get(group.id);
    this.#waiters.delete(group.id);
    for (const waiter of waiters ?? []) waiter.resolve(group);
  }

  /** At shutdown: nobody will complete these groups any more. */
  close(): void {
    for (const waiters of this.#waiters.values()) {
      for (const waiter of waiters) waiter.reject(new TokentapError('TT_SHUTTING_DOWN'));
    }
    this.#waiters.clear();
  }
}
