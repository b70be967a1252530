import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionEndWatch } from '../../store/types.js';
import { createTempWorkspace, engineSuiteName, engineUnavailable, recordCall, STORE_ENGINES, type TempWorkspace } from './store-fixtures.js';

/**
 * Store.watchSessionEnds: on PostgreSQL every end committed by any connection is told to a live watch (schema 8's
 * trigger, LISTEN), and nothing else is; SQLite has no such notice and answers null.
 */
for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(engineSuiteName(engine), () => {
    let workspace: TempWorkspace;
    let watch: SessionEndWatch | null = null;
    beforeEach(() => {
      workspace = createTempWorkspace(engine);
    });
    afterEach(async () => {
      await watch?.close();
      watch = null;
      workspace.cleanup();
    });

    it('tells a live watch each session another connection ends, once, and nothing of calls or new sessions', async () => {
      const reader = workspace.open();
      const told: string[] = [];
      const states: boolean[] = [];
      const opened = reader.watchSessionEnds({ ended: (sessionId) => told.push(sessionId), liveChanged: (live) => states.push(live) });
      watch = opened;
      if (engine === 'sqlite' || opened === null) {
        expect([engine, opened]).toEqual(['sqlite', null]);
        return;
      }
      await vi.waitFor(() => expect(opened.live).toBe(true), { timeout: 10_000 });
      const writer = workspace.open();
      writer.createRollout({ sessionId: 'kept', createdAt: 1 });
      writer.createRollout({ sessionId: 'ends', createdAt: 2 });
      recordCall(writer, { sessionId: 'kept' });
      writer.endSession('ends', { status: 'completed', reason: 'explicit', endedAt: 3 });
      // ending it again changes no row: no second notice
      expect(() => writer.endSession('ends', { status: 'failed', reason: 'explicit', endedAt: 4 })).toThrow();
      writer.createRollout({ sessionId: 'marker', createdAt: 5 });
      writer.endSession('marker', { status: 'aborted', reason: 'explicit', endedAt: 6 });
      await vi.waitFor(() => expect(told).toContain('marker'), { timeout: 5_000 });
      expect(told).toEqual(['ends', 'marker']);
      expect(states).toEqual([true]);
      await opened.close();
      // closing is the reader's own doing: it is not told as a lost connection
      expect([opened.live, states]).toEqual([false, [true]]);
    }, 30_000);
  });
}
