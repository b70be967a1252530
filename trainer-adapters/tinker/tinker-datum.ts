import type { ExportRow } from '../trainer-adapter.js';

/** Tinker's `TensorData` wire form (SDK `tinker/types`): flat data, its dtype and shape. */
export interface TinkerTensorData {
  data: number[];
  dtype: 'int64' | 'float32';
  shape: number[];
}

/** Tinker's `Datum` wire form with one encoded-text chunk (shared/reference/trainer-formats.md 5a). */
export interface TinkerDatum {
  model_input: { chunks: Array<{ type: 'encoded_text'; tokens: number[] }> };
  loss_fn_inputs: Record<string, TinkerTensorData>;
}

// Tinker coerces each loss input to a fixed dtype; the cookbook strips any other key before calling the API
// (unknown keys are rejected), so the Datum carries exactly these and no tokentap ids.
const LOSS_INPUT_DTYPES = { target_tokens: 'int64', logprobs: 'float32', advantages: 'float32', weights: 'float32' } as const;

/**
 * The Datum JSON of a flat tinker row: `model_input_tokens` as the one chunk, every loss input column present in
 * the row as `TensorData`, nothing else (the row's `session_id` and `group_key` stay out).
 *
 * @example
 * toTinkerDatum({ model_input_tokens: Int32Array.of(1, 2), target_tokens: Int32Array.of(2, 3), weights: Float32Array.of(0, 1) });
 * // { model_input: { chunks: [{ type: 'encoded_text', tokens: [1, 2] }] }, loss_fn_inputs: { target_tokens: {...}, weights: {...} } }
 */
export function toTinkerDatum(row: ExportRow): TinkerDatum {
  const lossInputs: Record<string, TinkerTensorData> = {};
  for (const [name, dtype] of Object.entries(LOSS_INPUT_DTYPES)) {
    const values = row[name] as ArrayLike<number> | undefined;
    if (values !== undefined) lossInputs[name] = { data: Array.from(values), dtype, shape: [values.length] };
  }
  const tokens = Array.from(row.model_input_tokens as ArrayLike<number>);
  return { model_input: { chunks: [{ type: 'encoded_text', tokens }] }, loss_fn_inputs: lossInputs };
}
