import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';

// What TRL GRPOTrainer's rollout_func returns per completion (shared/reference/trainer-formats.md 4c): prompt_ids,
// completion_ids, logprobs, env_mask; the other keys are forwarded to the reward functions.
const COLUMNS: readonly ColumnSpec[] = [
  { name: 'prompt_ids', type: 'int32[]', description: "tokens[:prompt_length]: the first call's prompt" },
  { name: 'completion_ids', type: 'int32[]', description: 'the rest: sampled tokens and the tool results / prompts between them' },
  { name: 'logprobs', type: 'float32[]', description: 'sampling logprobs aligned with completion_ids, 0 on env tokens' },
  { name: 'env_mask', type: 'uint8[]', description: '1 = model token, 0 = tool/environment token inside the completion' },
  { name: 'reward', type: 'float64', description: "the rollout's reward" },
  {
    name: 'advantage',
    type: 'float32',
    nullable: true,
    description: "the export's advantage of the rollout (TRL computes its own from the rewards)",
  },
  { name: 'group_id', type: 'string', description: "the group key: the group id, else the rollout id; a group's completions are contiguous" },
  { name: 'session_id', type: 'string', description: 'the recorded session' },
];

const DESCRIPTION = 'TRL GRPOTrainer rollout_func rows (prompt_ids, completion_ids, logprobs, env_mask, reward); groups contiguous';

/**
 * TRL GRPO rows: one completion per sample, split at the first call's prompt length, `env_mask` marking the
 * tool tokens inside the completion.
 *
 * @example
 * const row = createTrlGrpoAdapter().toRow(exportSample); // { prompt_ids, completion_ids, logprobs, env_mask, ... }
 */
export function createTrlGrpoAdapter(): TrainerAdapter {
  return {
    format: 'trl-grpo',
    shape: undefined,
    description: DESCRIPTION,
    needs: { reward: true, advantage: false, conversation: false },
    columns: COLUMNS,
    toRow: toTrlGrpoRow,
  };
}

function toTrlGrpoRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { sample } = exported;
  if (sample.reward === undefined) return { skip: 'no_reward' };
  const split = sample.promptLength;
  return {
    prompt_ids: sample.tokens.slice(0, split),
    completion_ids: sample.tokens.slice(split),
    logprobs: sample.logprobs.slice(split),
    env_mask: sample.lossMask.slice(split),
    reward: sample.reward,
    advantage: exported.advantage,
    group_id: exported.groupKey,
    session_id: sample.sessionId,
  };
}

/** `--format trl-grpo` */
export const TRL_GRPO_FORMAT: TrainerFormat = { format: 'trl-grpo', description: DESCRIPTION, create: () => createTrlGrpoAdapter() };
