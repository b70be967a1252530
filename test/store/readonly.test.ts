import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createTempWorkspace,
  engineSuiteName,
  engineUnavailable,
  recordCall,
  sampleBeginInput,
  schemaVersionOf,
  STORE_ENGINES,
  storeErrorCode as codeOf,
  workspaceForEachTest,
} from './store-fixtures.js';

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: readonly open`, () => {
    const workspace = workspaceForEachTest(engine);

    it('a database that holds no store (an empty file, an empty PostgreSQL database) fails with STORE_NOT_INITIALIZED and is left so', () => {
      const empty = createTempWorkspace(engine, { schema: 'empty' });
      try {
        empty.inspect(() => undefined); // SQLite: the empty file exists (PostgreSQL's empty database already does)
        expect(codeOf(() => empty.open({ readonly: true }))).toBe('STORE_NOT_INITIALIZED');
        expect(schemaVersionOf(empty)).toBe(0);
      } finally {
        empty.cleanup();
      }
    });

    it('reads what a writer committed while the writer is still open', () => {
      const writer = workspace.open();
      const callId = recordCall(writer);
      const reader = workspace.open({ readonly: true });
      expect(reader.getCall(callId)?.promptTokenIds).toEqual(Int32Array.from([151644, 872, 198, 14990, 151645]));
      expect(reader.getCallBodies(callId)?.requestBody).toEqual(sampleBeginInput().requestBody);
      expect(reader.listSessions().map((session) => session.id)).toEqual(['session-a']);
    });

    it('every write on a read-only store fails with STORE_READONLY', () => {
      const callId = recordCall(workspace.open());
      const reader = workspace.open({ readonly: true });
      expect(codeOf(() => reader.beginCall(sampleBeginInput()))).toBe('STORE_READONLY');
      expect(codeOf(() => reader.ensureSession('other'))).toBe('STORE_READONLY');
      expect(codeOf(() => reader.recoverOrphanedCalls(() => false))).toBe('STORE_READONLY');
      expect(codeOf(() => reader.finishCall(callId, {} as never))).toBe('STORE_READONLY');
    });
  });
}

// SQLite only: a missing file is SQLite's own case (a PostgreSQL database that does not exist fails to connect)
describe('sqlite: readonly open of a missing file', () => {
  it('fails with STORE_NOT_INITIALIZED and creates no file', () => {
    const workspace = createTempWorkspace('sqlite');
    try {
      expect(codeOf(() => workspace.open({ readonly: true }))).toBe('STORE_NOT_INITIALIZED');
      expect(existsSync(workspace.databasePath)).toBe(false);
    } finally {
      workspace.cleanup();
    }
  });
});
