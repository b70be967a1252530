import { describe, expect, it } from 'vitest';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const adapter = createTrainerAdapter('verl');

describe('verl adapter', () => {
  it('splits the sample at the first prompt length into padding-free prompt and response columns', () => {
    const row = expectRowMatchesColumns(adapter.toRow(makeExportSample()), adapter.columns);
    expect(row).toEqual({
      uid: 'group-1',
      prompt_ids: Int32Array.of(10, 11, 12),
      response_ids: Int32Array.of(13, 14, 15, 16, 17),
      response_mask: Uint8Array.of(1, 1, 0, 0, 1),
      response_logprobs: Float32Array.of(-0.5, -0.25, 0, 0, -1.5),
      reward: 0.75,
      advantage: 1.25,
      num_turns: 2,
      loss_weight: 0.5,
      rollout_id: 'rollout-1',
      session_id: 'session-1',
      extra_info: {
        group_id: 'group-1',
        index: 7,
        group_index: 1,
        rollout_index: 4,
        sample_index: 1,
        sample_count: 2,
        status: 'completed',
        faithful: true,
        call_ids: ['call-1', 'call-2'],
        policy_versions: ['v1', 'v2'],
      },
    });
  });

  it('keys an ungrouped rollout by its group key (the rollout id) and writes a null advantage as null', () => {
    const row = expectRowMatchesColumns(
      adapter.toRow(makeExportSample({ groupKey: 'rollout-1', advantage: null }, { groupId: undefined })),
      adapter.columns,
    );
    expect(row.uid).toBe('rollout-1');
    expect(row.advantage).toBeNull();
    expect((row.extra_info as { group_id: unknown }).group_id).toBeNull();
  });

  it('copies the arrays: changing a row leaves the sample as it was', () => {
    const exported = makeExportSample();
    const row = adapter.toRow(exported) as { prompt_ids: Int32Array; response_mask: Uint8Array };
    row.prompt_ids[0] = 99;
    row.response_mask[0] = 0;
    expect(exported.sample.tokens[0]).toBe(10);
    expect(exported.sample.lossMask[3]).toBe(1);
  });

  it('skips a sample without a reward (no_reward) and one with no response token to carry it (empty_response)', () => {
    expect(adapter.toRow(makeExportSample({}, { reward: undefined }))).toEqual({ skip: 'no_reward' });
    expect(adapter.toRow(makeExportSample({}, { promptLength: 8 }))).toEqual({ skip: 'empty_response' });
  });

  it('needs a reward but no advantage or conversation', () => {
    expect(adapter.needs).toEqual({ reward: true, advantage: false, conversation: false });
  });
});
