import { afterEach, describe, expect, it } from 'vitest';
import { CallGate } from '../../../gateway/rollouts/call-gate.js';
import { startIdleSweeper, type IdleSweeper } from '../../../gateway/rollouts/idle-sweeper.js';
import { openStore } from '../../../store/index.js';
import type { Store } from '../../../store/types.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

let sweeper: IdleSweeper | undefined;
let store: Store | undefined;
let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => {
  sweeper?.stop();
  store?.close();
  temp?.remove();
  [sweeper, store, temp] = [undefined, undefined, undefined];
});

describe('the idle-session sweep', () => {
  it('a store that cannot be read (PostgreSQL restarting) fails that sweep only, reported; the next one ends the idle session', async () => {
    temp = makeTempDir();
    store = openStore({ path: temp.file('tokentap.db') });
    store.createRollout({ sessionId: 'quiet', createdAt: Date.now() - 60_000 });
    const inner = store;
    let reads = 0;
    // the gateway thread's connection to a database that went away, as pg-database.ts throws it; the second read works
    const flaky: Pick<Store, 'listIdleRollouts'> = {
      listIdleRollouts: (before) => {
        reads++;
        if (reads === 1) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { name: 'PgError', code: 'ECONNREFUSED' });
        return inner.listIdleRollouts(before);
      },
    };
    const errors: unknown[] = [];
    const ended = new Promise<string>((resolve) => {
      sweeper = startIdleSweeper({
        store: flaky,
        gate: new CallGate('hold'),
        timeoutMs: 20,
        endIdle: resolve,
        onError: (error) => errors.push(error),
      });
    });
    // an exception thrown from the sweep's timer would end the gateway's process (vitest fails the run on it)
    expect(await ended).toBe('quiet');
    expect(errors).toEqual([expect.objectContaining({ code: 'ECONNREFUSED' })]);
  });
});
