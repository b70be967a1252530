import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchWriter } from '../../../gateway/recorder/batch-writer.js';
import { createTempWorkspace, sampleBeginInput, sampleFinishInput, type TempWorkspace } from '../../store/store-fixtures.js';

let workspace: TempWorkspace | undefined;
afterEach(() => {
  workspace?.cleanup();
  workspace = undefined;
});

function begin(callId: string, content: string) {
  return { kind: 'begin' as const, input: { ...sampleBeginInput({ requestBody: { messages: [{ role: 'user', content }] } }), callId } };
}

describe('a batch that fills the disk', () => {
  it('fails every write from the full one on with SQLITE_FULL, and commits none of them on its own', async () => {
    workspace = createTempWorkspace();
    workspace.open().close(); // migrated at its natural size
    const store = workspace.open({ maxBytes: 1 });
    const { committed, errors } = new BatchWriter(store).write([
      begin('big', randomBytes(8192).toString('hex')),
      begin('small', 'hi'),
      { kind: 'finish', callId: 'small', result: sampleFinishInput() },
    ]);
    expect(committed).toBe(false);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['SQLITE_FULL', 'SQLITE_FULL', 'SQLITE_FULL']);
    expect(store.getCall('small')).toBeNull();
    expect(store.getCall('big')).toBeNull();
  });

  it('still records calls that fit once the batch is over', async () => {
    workspace = createTempWorkspace();
    const store = workspace.open({ maxBytes: 64 * 1024 * 1024 });
    const writer = new BatchWriter(store);
    expect(writer.write([begin('fits', 'hello')]).errors).toEqual([undefined]);
    expect(store.getCall('fits')?.status).toBe('in_progress');
  });
});
