import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';
import { toTinkerDatum } from './tinker-datum.js';

export type TinkerShape = 'rl' | 'sft';

// Position i of model_input predicts token i+1 (shared/reference/trainer-formats.md 5a): every loss input is the
// sequence shifted by one, length N-1.
const SHARED_HEAD: readonly ColumnSpec[] = [
  { name: 'model_input_tokens', type: 'int32[]', description: 'tokens[:-1]: the model input (one encoded_text chunk)' },
  { name: 'target_tokens', type: 'int32[]', description: 'tokens[1:]: the token each input position predicts' },
];
const SHARED_TAIL: readonly ColumnSpec[] = [
  { name: 'session_id', type: 'string', description: 'the recorded session (Parquet only; not in the Datum JSON)' },
  { name: 'group_key', type: 'string', description: 'the group key: the group id, else the rollout id (Parquet only; not in the Datum JSON)' },
];
const COLUMNS: Record<TinkerShape, readonly ColumnSpec[]> = {
  rl: [
    ...SHARED_HEAD,
    { name: 'logprobs', type: 'float32[]', description: 'logprobs[1:]: the sampling logprob of each target, 0 on context' },
    { name: 'advantages', type: 'float32[]', description: "the rollout's advantage on each sampled target (loss_mask[1:] = 1), 0 elsewhere" },
    ...SHARED_TAIL,
  ],
  sft: [
    ...SHARED_HEAD,
    { name: 'weights', type: 'float32[]', description: 'loss_mask[1:] as 0.0 / 1.0: train on the sampled targets only' },
    ...SHARED_TAIL,
  ],
};

const DESCRIPTION =
  'Tinker Datum rows (model_input, shifted target_tokens, logprobs + advantages for rl, weights for sft); JSONL lines are Datum JSON';

/**
 * Tinker rows for one shape: flat columns (Parquet, and what `toJson` reads) and the Datum wire JSON for JSONL.
 *
 * @example
 * const adapter = createTinkerAdapter('rl');
 * const datum = adapter.toJson!(adapter.toRow(exportSample) as ExportRow); // { model_input, loss_fn_inputs }
 */
export function createTinkerAdapter(shape: TinkerShape): TrainerAdapter {
  return {
    format: 'tinker',
    shape,
    description: DESCRIPTION,
    needs: { reward: shape === 'rl', advantage: shape === 'rl', conversation: false },
    columns: COLUMNS[shape],
    toRow: (exported) => toTinkerRow(exported, shape),
    toJson: toTinkerDatum,
  };
}

function toTinkerRow(exported: ExportSample, shape: TinkerShape): ExportRow | AdapterSkip {
  const { sample } = exported;
  // a one-token sequence predicts nothing
  if (sample.tokens.length < 2) return { skip: 'too_short' };
  const head = { model_input_tokens: sample.tokens.slice(0, -1), target_tokens: sample.tokens.slice(1) };
  const tail = { session_id: sample.sessionId, group_key: exported.groupKey };
  const targetMask = sample.lossMask.subarray(1);
  if (shape === 'sft') return { ...head, weights: Float32Array.from(targetMask), ...tail };
  const advantage = exported.advantage;
  if (advantage === null) return { skip: 'no_advantage' };
  const advantages = Float32Array.from(targetMask, (mask) => (mask === 1 ? advantage : 0));
  return { ...head, logprobs: sample.logprobs.slice(1), advantages, ...tail };
}

/** `--format tinker [--shape rl|sft]` */
export const TINKER_FORMAT: TrainerFormat = {
  format: 'tinker',
  shapes: ['rl', 'sft'],
  defaultShape: 'rl',
  description: DESCRIPTION,
  create: (shape) => createTinkerAdapter(shape as TinkerShape),
};
