import type { SampleStatus } from '../../reconstruct/index.js';
import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';

export type SkyRlShape = 'generator' | 'sft';

// GeneratorOutput fields, one entry per row (shared/reference/trainer-formats.md 6a); trajectory_ids split into
// its two parts. The sft shape is SkyRL's pre-tokenized SFT row (6b), which rejects any column beyond these two.
const COLUMNS: Record<SkyRlShape, readonly ColumnSpec[]> = {
  generator: [
    { name: 'prompt_token_ids', type: 'int32[]', description: "tokens[:prompt_length]: the first call's prompt" },
    { name: 'response_ids', type: 'int32[]', description: 'the rest: sampled tokens and the tool results / prompts between them' },
    { name: 'rewards', type: 'float32', description: "the rollout's reward (a scalar per sequence)" },
    { name: 'loss_masks', type: 'uint8[]', description: '1 = sampled by the model, 0 = tool/observation token; aligned with response_ids' },
    { name: 'rollout_logprobs', type: 'float32[]', description: 'sampling logprobs aligned with response_ids, 0 where loss_masks is 0' },
    {
      name: 'stop_reasons',
      type: 'string',
      description: 'stop (completed), length (truncated), else the status (failed, aborted, in_progress, unknown)',
    },
    { name: 'trajectory_instance_id', type: 'string', description: 'TrajectoryID.instance_id: the group key (group id, else rollout id)' },
    { name: 'trajectory_repetition_id', type: 'int32', description: "TrajectoryID.repetition_id: the rollout's 0-based index in its group" },
    { name: 'is_last_step', type: 'bool', description: "true on the rollout's last exported sample (step-wise training)" },
    { name: 'session_id', type: 'string', description: 'the recorded session' },
  ],
  sft: [
    { name: 'input_ids', type: 'int32[]', description: 'the whole sequence' },
    { name: 'loss_mask', type: 'uint8[]', description: 'full length: 1 = train on this token (sampled by the model)' },
  ],
};

const DESCRIPTION =
  'SkyRL GeneratorOutput rows (generator: prompt_token_ids, response_ids, loss_masks, rewards, trajectory ids) or pre-tokenized SFT rows (sft: input_ids, loss_mask)';

/**
 * SkyRL rows for one shape: a custom generator's `GeneratorOutput`, one entry per sample, or the pre-tokenized
 * SFT dataset rows SkyRL loads directly.
 *
 * @example
 * const row = createSkyRlAdapter('sft').toRow(exportSample); // { input_ids, loss_mask }
 */
export function createSkyRlAdapter(shape: SkyRlShape): TrainerAdapter {
  return {
    format: 'skyrl',
    shape,
    description: DESCRIPTION,
    needs: { reward: shape === 'generator', advantage: false, conversation: false },
    columns: COLUMNS[shape],
    toRow: shape === 'sft' ? toSftRow : toGeneratorRow,
  };
}

/**
 * A sample's status as a vLLM-style stop reason: SkyRL's overlong filtering zeroes the loss of `length` samples.
 *
 * @example toStopReason('truncated'); // 'length'
 */
export function toStopReason(status: SampleStatus): string {
  if (status === 'completed') return 'stop';
  return status === 'truncated' ? 'length' : status;
}

function toGeneratorRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { sample } = exported;
  if (sample.reward === undefined) return { skip: 'no_reward' };
  const split = sample.promptLength;
  return {
    prompt_token_ids: sample.tokens.slice(0, split),
    response_ids: sample.tokens.slice(split),
    rewards: sample.reward,
    loss_masks: sample.lossMask.slice(split),
    rollout_logprobs: sample.logprobs.slice(split),
    stop_reasons: toStopReason(sample.status),
    trajectory_instance_id: exported.groupKey,
    trajectory_repetition_id: exported.repetitionIndex,
    is_last_step: exported.rolloutSampleIndex === exported.rolloutSampleCount - 1,
    session_id: sample.sessionId,
  };
}

function toSftRow(exported: ExportSample): ExportRow {
  return { input_ids: exported.sample.tokens.slice(), loss_mask: exported.sample.lossMask.slice() };
}

/** `--format skyrl [--shape generator|sft]` */
export const SKYRL_FORMAT: TrainerFormat = {
  format: 'skyrl',
  shapes: ['generator', 'sft'],
  defaultShape: 'generator',
  description: DESCRIPTION,
  create: (shape) => createSkyRlAdapter(shape as SkyRlShape),
};
