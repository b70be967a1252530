import { describe, expect, it } from 'vitest';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const adapter = createTrainerAdapter('trl-grpo');

describe('trl-grpo adapter', () => {
  it('writes rollout_func fields: completion-aligned logprobs and env_mask, the group key as group_id', () => {
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample()), adapter.columns);
    expect(row).toEqual({
      prompt_ids: Int32Array.of(10, 11, 12),
      completion_ids: Int32Array.of(13, 14, 15, 16, 17),
      logprobs: Float32Array.of(-0.5, -0.25, 0, 0, -1.5),
      env_mask: Uint8Array.of(1, 1, 0, 0, 1),
      reward: 0.75,
      advantage: 1.25,
      group_id: 'group-1',
      session_id: 'session-1',
    });
  });

  it('uses the group key, so an ungrouped rollout is a group of its own', () => {
    const row = adapter.toRow(makeExportSample({ groupKey: 'rollout-9', advantage: null }, { groupId: undefined })) as {
      group_id: string;
      advantage: null;
    };
    expect([row.group_id, row.advantage]).toEqual(['rollout-9', null]);
  });

  it('skips a sample without a reward', () => {
    expect(adapter.toRow(makeExportSample({}, { reward: undefined }))).toEqual({ skip: 'no_reward' });
  });
});
