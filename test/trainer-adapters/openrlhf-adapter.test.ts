import { describe, expect, it } from 'vitest';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { actionRanges } from '../../trainer-adapters/openrlhf/action-ranges.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const adapter = createTrainerAdapter('openrlhf');

describe('actionRanges', () => {
  it('turns each run of 1 into a [start, end) pair', () => {
    expect(actionRanges(Uint8Array.of(0, 0, 0, 1, 1, 0, 0, 1))).toEqual([
      [3, 5],
      [7, 8],
    ]);
  });

  it('handles runs at both edges, single-token runs and runs split by one context token', () => {
    expect(actionRanges(Uint8Array.of(1, 1, 0, 1, 0, 1, 1))).toEqual([
      [0, 2],
      [3, 4],
      [5, 7],
    ]);
  });

  it('gives no ranges for an empty or all-context mask and one range for an all-sampled mask', () => {
    expect(actionRanges(new Uint8Array(0))).toEqual([]);
    expect(actionRanges(Uint8Array.of(0, 0))).toEqual([]);
    expect(actionRanges(Uint8Array.of(1, 1, 1))).toEqual([[0, 3]]);
  });
});

describe('openrlhf adapter', () => {
  it('writes the execute() dict: full-length tokens and logprobs, action ranges from the mask', () => {
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample()), adapter.columns);
    expect(row).toEqual({
      prompt: '',
      label: '',
      observation_tokens: Int32Array.of(10, 11, 12, 13, 14, 15, 16, 17),
      action_ranges: [
        [3, 5],
        [7, 8],
      ],
      rollout_log_probs: Float32Array.of(0, 0, 0, -0.5, -0.25, 0, 0, -1.5),
      reward: 0.75,
      scores: 0.75,
      truncated: false,
      extra_logs: { loss_weight: 0.5, num_turns: 2 },
      session_id: 'session-1',
    });
  });

  it('marks only truncated samples as truncated', () => {
    expect((adapter.toRow(makeExportSample({}, { status: 'truncated' })) as { truncated: boolean }).truncated).toBe(true);
    expect((adapter.toRow(makeExportSample({}, { status: 'failed' })) as { truncated: boolean }).truncated).toBe(false);
  });

  it('skips a sample without a reward', () => {
    expect(adapter.toRow(makeExportSample({}, { reward: undefined }))).toEqual({ skip: 'no_reward' });
  });
});
