import { createHash, type Hash } from 'node:crypto';
import { canonicalJson } from '../../core/json/canonical-json.js';
import type { CallRow, Store } from '../types.js';

/** One digest of a store's walk: a group, a session (its rollout fields and rewards) or a call (its ids). */
export interface DigestEntry {
  kind: 'group' | 'session' | 'call';
  id: string;
  /** the call's session, for messages */
  sessionId: string | null;
  /** sha256, hex */
  digest: string;
}

/** Export units per page of the walk. */
export const DEFAULT_DIGEST_PAGE = 256;

/**
 * Walks a store through the Store contract alone, so the same walk reads SQLite and PostgreSQL and checks what
 * readers get back, not what the tables hold: export units in creation order (keyset-paged, memory flat), each group
 * then its sessions oldest first, each session then its calls by seq. A call's digest covers its id, seq, status,
 * token source, finish and stop reason, and its prompt ids (rebuilt from their deltas), completion ids and logprobs
 * as bytes; a session's its rollout fields and every reward posted; a group's its size, times and members.
 *
 * @example for (const entry of digestStore(store)) console.log(entry.kind, entry.id, entry.digest);
 */
export function* digestStore(store: Store, pageSize = DEFAULT_DIGEST_PAGE): Generator<DigestEntry> {
  let afterPosition = 0;
  for (;;) {
    const units = store.listExportUnits({ limit: pageSize, afterPosition });
    for (const unit of units) {
      let sessionIds = [unit.sessionId];
      if (unit.groupId !== null) {
        const group = store.getGroup(unit.groupId);
        yield { kind: 'group', id: unit.groupId, sessionId: null, digest: digestOf([canonicalJson(group)]) };
        sessionIds = group?.sessions.map((session) => session.id) ?? sessionIds;
      }
      for (const sessionId of sessionIds) yield* digestSession(store, sessionId);
    }
    const last = units[units.length - 1];
    if (last === undefined || units.length < pageSize) return;
    afterPosition = last.position;
  }
}

function* digestSession(store: Store, sessionId: string): Generator<DigestEntry> {
  const rollout = store.getRollout(sessionId);
  const rewards = store.listRewards(sessionId, { history: true });
  yield { kind: 'session', id: sessionId, sessionId, digest: digestOf([canonicalJson(rollout), canonicalJson(rewards)]) };
  for (const call of store.listCalls(sessionId)) yield { kind: 'call', id: call.id, sessionId, digest: digestCall(call) };
}

/**
 * The digest of one call's identity and token data.
 *
 * @example digestCall(store.getCall(callId)!) // '9f86d08...'
 */
export function digestCall(call: CallRow): string {
  return digestOf([
    call.id,
    call.sessionId,
    String(call.seq),
    call.status,
    String(call.tokenSource),
    String(call.finishReason),
    JSON.stringify(call.stopReason),
    call.promptTokenIds,
    call.completionTokenIds,
    call.completionLogprobs,
  ]);
}

/** sha256 over parts, each tagged with its kind and length so that no two lists of parts hash alike. */
function digestOf(parts: ReadonlyArray<string | Int32Array | Float32Array | null>): string {
  const hash = createHash('sha256');
  for (const part of parts) update(hash, part);
  return hash.digest('hex');
}

function update(hash: Hash, part: string | Int32Array | Float32Array | null): void {
  if (part === null) {
    hash.update('n;');
    return;
  }
  const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part.buffer, part.byteOffset, part.byteLength);
  hash.update(`${typeof part === 'string' ? 's' : part instanceof Int32Array ? 'i' : 'f'}${bytes.length};`);
  hash.update(bytes);
}
