import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSchemaVersion } from '../../store/migrations/apply-migrations.js';
import { createTempWorkspace, recordCall, sampleBeginInput, storeErrorCode as codeOf, type TempWorkspace } from './store-fixtures.js';

let workspace: TempWorkspace;
beforeEach(() => {
  workspace = createTempWorkspace();
});
afterEach(() => workspace.cleanup());

describe('readonly open', () => {
  it('a missing file fails with STORE_NOT_INITIALIZED and is not created', () => {
    expect(codeOf(() => workspace.open({ readonly: true }))).toBe('STORE_NOT_INITIALIZED');
    expect(existsSync(workspace.databasePath)).toBe(false);
  });

  it('an unmigrated file fails with STORE_NOT_INITIALIZED and is left unmigrated', () => {
    new Database(workspace.databasePath).close();
    expect(codeOf(() => workspace.open({ readonly: true }))).toBe('STORE_NOT_INITIALIZED');
    const database = new Database(workspace.databasePath);
    expect(readSchemaVersion(database)).toBe(0);
    database.close();
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
