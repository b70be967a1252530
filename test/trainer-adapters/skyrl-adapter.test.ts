import { describe, expect, it } from 'vitest';
import type { SampleStatus } from '../../reconstruct/index.js';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const generator = createTrainerAdapter('skyrl');
const sft = createTrainerAdapter('skyrl', { shape: 'sft' });

describe('skyrl adapter, generator shape', () => {
  it('writes one GeneratorOutput entry: response-aligned masks and logprobs, trajectory id in two columns', () => {
    const row = expectRowMatchesColumns(generator.toRow(makeExportSample()), generator.columns);
    expect(row).toEqual({
      prompt_token_ids: Int32Array.of(10, 11, 12),
      response_ids: Int32Array.of(13, 14, 15, 16, 17),
      rewards: 0.75,
      loss_masks: Uint8Array.of(1, 1, 0, 0, 1),
      rollout_logprobs: Float32Array.of(-0.5, -0.25, 0, 0, -1.5),
      stop_reasons: 'stop',
      trajectory_instance_id: 'group-1',
      trajectory_repetition_id: 2,
      is_last_step: true,
      session_id: 'session-1',
    });
  });

  it('marks only the last exported sample of a rollout as its last step', () => {
    const steps = [0, 1, 2].map(
      (rolloutSampleIndex) => generator.toRow(makeExportSample({ rolloutSampleIndex, rolloutSampleCount: 3 })) as { is_last_step: boolean },
    );
    expect(steps.map((step) => step.is_last_step)).toEqual([false, false, true]);
  });

  it('maps statuses to stop reasons: completed is stop, truncated is length (overlong filtering), others as they are', () => {
    const statuses: Array<[SampleStatus, string]> = [
      ['completed', 'stop'],
      ['truncated', 'length'],
      ['failed', 'failed'],
      ['aborted', 'aborted'],
      ['unknown', 'unknown'],
    ];
    for (const [status, expected] of statuses) {
      expect((generator.toRow(makeExportSample({}, { status })) as { stop_reasons: string }).stop_reasons).toBe(expected);
    }
  });

  it('skips a sample without a reward', () => {
    expect(generator.toRow(makeExportSample({}, { reward: undefined }))).toEqual({ skip: 'no_reward' });
  });
});

describe('skyrl adapter, sft shape', () => {
  it('writes exactly input_ids and a full-length loss_mask (SkyRL rejects other columns)', () => {
    const row = expectRowMatchesColumns(sft.toRow(makeExportSample({}, { reward: undefined })), sft.columns);
    expect(row).toEqual({ input_ids: Int32Array.of(10, 11, 12, 13, 14, 15, 16, 17), loss_mask: Uint8Array.of(0, 0, 0, 1, 1, 0, 0, 1) });
    expect(sft.needs.reward).toBe(false);
  });
});
