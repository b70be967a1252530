import { describe, expect, it } from 'vitest';
import type { SampleStatus } from '../../reconstruct/index.js';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const adapter = createTrainerAdapter('slime');

describe('slime adapter', () => {
  it('writes the whole sequence with response-only loss_mask and rollout_log_probs of length response_length', () => {
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample()), adapter.columns);
    expect(row).toEqual({
      group_index: 1,
      index: 7,
      rollout_id: 4,
      prompt: '',
      tokens: Int32Array.of(10, 11, 12, 13, 14, 15, 16, 17),
      response_length: 5,
      label: null,
      reward: 0.75,
      loss_mask: Uint8Array.of(1, 1, 0, 0, 1),
      rollout_log_probs: Float32Array.of(-0.5, -0.25, 0, 0, -1.5),
      weight_versions: ['v1', 'v2'],
      status: 'completed',
      metadata: {
        session_id: 'session-1',
        group_id: 'group-1',
        call_ids: ['call-1', 'call-2'],
        loss_weight: 0.5,
        advantage: 1.25,
        tokentap_rollout_id: 'rollout-1',
        tokentap_status: 'completed',
      },
      session_id: 'session-1',
    });
  });

  it('maps statuses onto slime values: finished ones as they are, open or unknown ones as aborted', () => {
    const statuses: Array<[SampleStatus, string]> = [
      ['completed', 'completed'],
      ['truncated', 'truncated'],
      ['failed', 'failed'],
      ['aborted', 'aborted'],
      ['in_progress', 'aborted'],
      ['unknown', 'aborted'],
    ];
    for (const [status, expected] of statuses) {
      const row = adapter.toRow(makeExportSample({}, { status })) as { status: string; metadata: { tokentap_status: string } };
      expect([row.status, row.metadata.tokentap_status]).toEqual([expected, status]);
    }
  });

  it('gives sibling samples of one rollout the same integer rollout_id', () => {
    const first = adapter.toRow(makeExportSample({ index: 6, rolloutSampleIndex: 0 })) as { rollout_id: number; index: number };
    const second = adapter.toRow(makeExportSample({ index: 7, rolloutSampleIndex: 1 })) as { rollout_id: number; index: number };
    expect([first.rollout_id, second.rollout_id, first.index, second.index]).toEqual([4, 4, 6, 7]);
  });

  it('skips a sample without a reward', () => {
    expect(adapter.toRow(makeExportSample({}, { reward: undefined }))).toEqual({ skip: 'no_reward' });
  });
});
