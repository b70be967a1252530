import { describe, expect, it } from 'vitest';
import { createTrainerAdapter } from '../../trainer-adapters/index.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const jsonl = createTrainerAdapter('jsonl');
const parquet = createTrainerAdapter('parquet');

const diagnostic = {
  kind: 'history-edited' as const,
  callId: 'call-1',
  againstCallId: 'call-0',
  position: 4,
  expected: { tokenIds: [1] },
  actual: { tokenIds: [2] },
  summary: 'edited',
};

describe('generic adapter (jsonl, parquet)', () => {
  it('writes every fact of the sample under tokentap names, with provenance', () => {
    const exported = makeExportSample(
      {},
      {
        chainIndex: 1,
        diagnostics: [diagnostic],
        rewardComponents: { correct: 1, format: -0.25 },
        callRewards: [{ callId: 'call-2', value: 0.5 }],
      },
    );
    const row = expectRowMatchesColumns(jsonl.toRow(exported), jsonl.columns);
    expect(row).toEqual({
      session_id: 'session-1',
      rollout_id: 'rollout-1',
      sample_index: 1,
      group_id: 'group-1',
      tokens: Int32Array.of(10, 11, 12, 13, 14, 15, 16, 17),
      loss_mask: Uint8Array.of(0, 0, 0, 1, 1, 0, 0, 1),
      logprobs: Float32Array.of(0, 0, 0, -0.5, -0.25, 0, 0, -1.5),
      prompt_length: 3,
      reward: 0.75,
      advantage: 1.25,
      loss_weight: 0.5,
      status: 'completed',
      faithful: true,
      call_ids: ['call-1', 'call-2'],
      policy_versions: ['v1', 'v2'],
      provenance: {
        chain_index: 1,
        drift: ['history-edited'],
        reward_components: { correct: 1, format: -0.25 },
        call_rewards: [{ call_id: 'call-2', value: 0.5, components: null }],
      },
    });
  });

  it('writes null for a missing group, reward and advantage, and keeps unrewarded samples (needs nothing)', () => {
    const row = expectRowMatchesColumns(jsonl.toRow(makeExportSample({ advantage: null }, { groupId: undefined, reward: undefined })), jsonl.columns);
    expect([row.group_id, row.reward, row.advantage]).toEqual([null, null, null]);
    expect(jsonl.needs).toEqual({ reward: false, advantage: false, conversation: false });
  });

  it('is one format under two names: the same columns and rows for jsonl and parquet', () => {
    expect(parquet.columns).toEqual(jsonl.columns);
    expect(parquet.toRow(makeExportSample())).toEqual(jsonl.toRow(makeExportSample()));
    expect([jsonl.format, parquet.format]).toEqual(['jsonl', 'parquet']);
  });
});
