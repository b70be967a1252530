import { describe, expect, it } from 'vitest';
import { createTrainerAdapter, type ExportRow } from '../../trainer-adapters/index.js';
import { expectRowMatchesColumns } from './expect-row-matches-columns.js';
import { makeExportSample } from './make-export-sample.js';

const rl = createTrainerAdapter('tinker');
const sft = createTrainerAdapter('tinker', { shape: 'sft' });

describe('tinker adapter, rl shape', () => {
  it('shifts by one: input tokens[:-1], targets tokens[1:], logprobs[1:], the advantage only on sampled targets', () => {
    const row = expectRowMatchesColumns(rl.toRow(makeExportSample()), rl.columns);
    expect(row).toEqual({
      model_input_tokens: Int32Array.of(10, 11, 12, 13, 14, 15, 16),
      target_tokens: Int32Array.of(11, 12, 13, 14, 15, 16, 17),
      logprobs: Float32Array.of(0, 0, -0.5, -0.25, 0, 0, -1.5),
      advantages: Float32Array.of(0, 0, 1.25, 1.25, 0, 0, 1.25),
      session_id: 'session-1',
      group_key: 'group-1',
    });
  });

  it('writes the Datum wire JSON with exactly the loss inputs of importance_sampling and no tokentap ids', () => {
    const datum = rl.toJson!(rl.toRow(makeExportSample()) as ExportRow);
    expect(JSON.parse(JSON.stringify(datum))).toEqual({
      model_input: { chunks: [{ type: 'encoded_text', tokens: [10, 11, 12, 13, 14, 15, 16] }] },
      loss_fn_inputs: {
        target_tokens: { data: [11, 12, 13, 14, 15, 16, 17], dtype: 'int64', shape: [7] },
        logprobs: { data: [0, 0, -0.5, -0.25, 0, 0, -1.5], dtype: 'float32', shape: [7] },
        advantages: { data: [0, 0, 1.25, 1.25, 0, 0, 1.25], dtype: 'float32', shape: [7] },
      },
    });
  });

  it('needs an advantage and skips a sample without one, and a sample too short to predict anything', () => {
    expect(rl.needs).toEqual({ reward: true, advantage: true, conversation: false });
    expect(rl.toRow(makeExportSample({ advantage: null }))).toEqual({ skip: 'no_advantage' });
    const single = { tokens: Int32Array.of(5), lossMask: Uint8Array.of(0), logprobs: Float32Array.of(0), policyVersions: [null], promptLength: 1 };
    expect(rl.toRow(makeExportSample({}, single))).toEqual({ skip: 'too_short' });
  });
});

describe('tinker adapter, sft shape', () => {
  it('weights the shifted targets by the loss mask, as floats', () => {
    const row = expectRowMatchesColumns(sft.toRow(makeExportSample({ advantage: null }, { reward: undefined })), sft.columns);
    expect(row).toEqual({
      model_input_tokens: Int32Array.of(10, 11, 12, 13, 14, 15, 16),
      target_tokens: Int32Array.of(11, 12, 13, 14, 15, 16, 17),
      weights: Float32Array.of(0, 0, 1, 1, 0, 0, 1),
      session_id: 'session-1',
      group_key: 'group-1',
    });
    expect(sft.needs).toEqual({ reward: false, advantage: false, conversation: false });
  });

  it('writes the cross_entropy Datum: target_tokens and weights only', () => {
    const datum = sft.toJson!(sft.toRow(makeExportSample()) as ExportRow) as { loss_fn_inputs: Record<string, unknown> };
    expect(Object.keys(datum.loss_fn_inputs)).toEqual(['target_tokens', 'weights']);
    expect(datum.loss_fn_inputs.weights).toEqual({ data: [0, 0, 1, 1, 0, 0, 1], dtype: 'float32', shape: [7] });
  });
});
