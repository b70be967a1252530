import { createHash } from 'node:crypto';
import type { Store } from '../../../store/types.js';

/**
 * A digest of everything the store holds that a request could change: sessions with their rollout fields and
 * reward history, every call with its bodies, the policy version, and the row counts. Equal before and after a
 * refused request means the request changed no stored data.
 */
export function storeFingerprint(store: Store): string {
  const sessions = store.listSessions({ limit: 1_000_000 });
  const content = {
    stats: { sessions: store.stats().sessions, calls: store.stats().calls },
    policyVersion: store.getPolicyVersion(),
    sessions: sessions.map((session) => ({
      session,
      rollout: store.getRollout(session.id),
      rewards: store.listRewards(session.id, { history: true }),
      group: (() => {
        const groupId = store.getRollout(session.id)?.groupId;
        return groupId === undefined || groupId === null ? null : store.getGroup(groupId);
      })(),
      calls: store.listCalls(session.id).map((call) => ({ call, bodies: store.getCallBodies(call.id) })),
    })),
  };
  return createHash('sha256')
    .update(JSON.stringify(content, (_key, value: unknown) => (ArrayBuffer.isView(value) ? Array.from(value as Uint8Array) : value)))
    .digest('hex');
}
