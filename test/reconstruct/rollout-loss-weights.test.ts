import { describe, expect, it } from 'vitest';
import { reconstructSession } from '../../reconstruct/index.js';
import { useExportFixture } from '../helpers/record-export-fixture.js';

const recorded = useExportFixture();

describe('loss weights of rollouts', () => {
  it('a rollout that ended failed gives its samples weight 0, though each call of it was ok', () => {
    const failed = recorded.fixture.rollouts.find((rollout) => rollout.status === 'failed')!;
    const samples = reconstructSession(recorded.store, failed.sessionId);
    expect(samples.map((sample) => [sample.status, sample.lossWeight])).toEqual([['failed', 0]]);
  });

  it('a completed rollout split into two samples gives each 1/2', () => {
    const split = recorded.fixture.rollouts.find((rollout) => rollout.mergedSamples === 2)!;
    expect(reconstructSession(recorded.store, split.sessionId).map((sample) => sample.lossWeight)).toEqual([0.5, 0.5]);
  });
});
