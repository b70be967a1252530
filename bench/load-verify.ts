import { openStore } from '../store/index.js';
import type { ReceivedCall } from './load-session.js';

/** What the store holds of the calls the clients received in full. */
export interface LoadVerdict {
  /** received calls found `ok` with the completion token count the client saw */
  verified: number;
  /** received calls with no row, or a row not `ok` */
  lost: number;
  /** `ok` rows whose completion ids are not as many as the tokens the client received */
  wrongTokenCount: number;
  /** every call row in the store, received or not */
  rowsInStore: number;
  sessionsInStore: number;
  bytesOnDisk: number;
  /** the first few problems, for the report */
  samples: string[];
}

/**
 * Opens the gateway's database (read-only, after the gateway stopped) and checks each call a client received in
 * full: present, `ok`, with as many completion token ids as the client counted tokens.
 *
 * @example const verdict = verifyReceivedCalls('load.db', stats.received); // verdict.lost === 0
 */
export function verifyReceivedCalls(dbPath: string, received: readonly ReceivedCall[]): LoadVerdict {
  const store = openStore({ path: dbPath, readonly: true });
  try {
    const verdict: LoadVerdict = { verified: 0, lost: 0, wrongTokenCount: 0, rowsInStore: 0, sessionsInStore: 0, bytesOnDisk: 0, samples: [] };
    for (const call of received) {
      const row = store.getCall(call.callId);
      if (row?.status !== 'ok') {
        verdict.lost++;
        if (verdict.samples.length < 10)
          verdict.samples.push(`LOST: ${call.sessionId} call ${call.callId} is ${row === null ? 'absent' : row.status}`);
        continue;
      }
      const stored = row.completionTokenIds?.length ?? 0;
      if (stored === call.completionTokens) {
        verdict.verified++;
        continue;
      }
      verdict.wrongTokenCount++;
      if (verdict.samples.length < 10)
        verdict.samples.push(`${call.sessionId} call ${call.callId}: ${stored} completion ids stored, ${call.completionTokens} tokens received`);
    }
    const stats = store.stats();
    return { ...verdict, rowsInStore: stats.calls, sessionsInStore: stats.sessions, bytesOnDisk: stats.bytesOnDisk };
  } finally {
    store.close();
  }
}
