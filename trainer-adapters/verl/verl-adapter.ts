import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';

// verl has no "load external rollouts" path; these are the AgentLoopOutput fields (shared/reference/trainer-formats.md
// 1b) as one padding-free row per sample, which examples/verl/load_tokentap.py pads into the DataProto of 1c.
const COLUMNS: readonly ColumnSpec[] = [
  { name: 'uid', type: 'string', description: "the GRPO group key (non_tensor_batch['uid']): the group id, else the rollout id" },
  { name: 'prompt_ids', type: 'int32[]', description: "tokens[:prompt_length]: the first call's prompt" },
  { name: 'response_ids', type: 'int32[]', description: 'the rest: sampled tokens and the tool results / prompts between them' },
  { name: 'response_mask', type: 'uint8[]', description: '1 = sampled by the model, 0 = tool/observation token; aligned with response_ids' },
  {
    name: 'response_logprobs',
    type: 'float32[]',
    description: 'sampling logprobs aligned with response_ids (0 where response_mask is 0); rollout_log_probs in verl',
  },
  { name: 'reward', type: 'float32', description: "the rollout's reward (AgentLoopOutput.reward_score; rm_scores on the last response token)" },
  {
    name: 'advantage',
    type: 'float32',
    nullable: true,
    description: "the export's advantage of the rollout (verl computes its own from reward and uid)",
  },
  { name: 'num_turns', type: 'int32', description: 'the recorded calls merged into the sample (__num_turns__)' },
  { name: 'loss_weight', type: 'float32', description: '1/k over the k exported samples of the rollout' },
  { name: 'rollout_id', type: 'string', description: "the tokentap rollout id; a rollout's samples share it" },
  { name: 'session_id', type: 'string', description: 'the recorded session' },
  {
    name: 'extra_info',
    type: 'json',
    description: '{ group_id, index, group_index, rollout_index, sample_index, sample_count, status, faithful, call_ids, policy_versions }',
  },
];

const DESCRIPTION =
  'verl AgentLoopOutput rows (prompt_ids, response_ids, response_mask, response_logprobs, reward) keyed by uid; examples/verl/load_tokentap.py pads them into a DataProto';

/**
 * verl rows: one padding-free AgentLoopOutput per sample, split at the first call's prompt length.
 *
 * @example
 * const row = createVerlAdapter().toRow(exportSample); // { uid, prompt_ids, response_ids, response_mask, ... }
 */
export function createVerlAdapter(): TrainerAdapter {
  return {
    format: 'verl',
    shape: undefined,
    description: DESCRIPTION,
    needs: { reward: true, advantage: false, conversation: false },
    columns: COLUMNS,
    toRow: toVerlRow,
  };
}

function toVerlRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { sample } = exported;
  if (sample.reward === undefined) return { skip: 'no_reward' };
  // verl puts the reward on the last valid response token: a sample without one has nowhere to carry it
  if (sample.tokens.length <= sample.promptLength) return { skip: 'empty_response' };
  const split = sample.promptLength;
  return {
    uid: exported.groupKey,
    prompt_ids: sample.tokens.slice(0, split),
    response_ids: sample.tokens.slice(split),
    response_mask: sample.lossMask.slice(split),
    response_logprobs: sample.logprobs.slice(split),
    reward: sample.reward,
    advantage: exported.advantage,
    num_turns: sample.callIds.length,
    loss_weight: exported.lossWeight,
    rollout_id: sample.rolloutId,
    session_id: sample.sessionId,
    extra_info: {
      group_id: sample.groupId ?? null,
      index: exported.index,
      group_index: exported.groupIndex,
      rollout_index: exported.rolloutIndex,
      sample_index: exported.rolloutSampleIndex,
      sample_count: exported.rolloutSampleCount,
      status: sample.status,
      faithful: sample.faithful,
      call_ids: [...sample.callIds],
      policy_versions: [...exported.policyVersions],
    },
  };
}

/** `--format verl` */
export const VERL_FORMAT: TrainerFormat = { format: 'verl', description: DESCRIPTION, create: () => createVerlAdapter() };
