import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../store/index.js';
import { reconstructSession } from '../../reconstruct/index.js';
import { recordExportFixture, type ExportFixture } from '../helpers/record-export-fixture.js';

let fixture: ExportFixture;
let store: Store;
beforeAll(async () => {
  fixture = await recordExportFixture();
  store = openStore({ path: fixture.dbPath, readonly: true });
}, 60_000);
afterAll(() => {
  store?.close();
  fixture?.remove();
});

describe('loss weights of rollouts', () => {
  it('a rollout that ended failed gives its samples weight 0, though each call of it was ok', () => {
    const failed = fixture.rollouts.find((rollout) => rollout.status === 'failed')!;
    const samples = reconstructSession(store, failed.sessionId);
    expect(samples.map((sample) => [sample.status, sample.lossWeight])).toEqual([['failed', 0]]);
  });

  it('a completed rollout split into two samples gives each 1/2', () => {
    const split = fixture.rollouts.find((rollout) => rollout.mergedSamples === 2)!;
    expect(reconstructSession(store, split.sessionId).map((sample) => sample.lossWeight)).toEqual([0.5, 0.5]);
  });
});
