import type { SampleStatus } from '../../reconstruct/index.js';
import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';

/** slime's finished `Sample.Status` values (slime/utils/types.py); tokentap's open states map to `aborted`. */
export type SlimeStatus = 'completed' | 'truncated' | 'aborted' | 'failed';

// Field names of slime's Sample dataclass (shared/reference/trainer-formats.md 2a): a row is a dict that
// Sample.from_dict accepts (unknown keys become attributes).
const COLUMNS: readonly ColumnSpec[] = [
  { name: 'group_index', type: 'int32', description: "0-based running index of the sample's group in the export" },
  { name: 'index', type: 'int32', description: '0-based position of the sample in the export' },
  { name: 'rollout_id', type: 'int32', description: '0-based running index of the rollout; sibling samples of one rollout share it' },
  { name: 'prompt', type: 'string', description: 'always "" (the prompt is in tokens)' },
  { name: 'tokens', type: 'int32[]', description: 'the whole sequence: prompt tokens then response tokens' },
  { name: 'response_length', type: 'int32', description: "the trailing tokens after the first call's prompt" },
  { name: 'label', type: 'string', nullable: true, description: 'always null' },
  { name: 'reward', type: 'float64', description: "the rollout's reward (the full reward on every sibling sample)" },
  { name: 'loss_mask', type: 'uint8[]', description: 'response-only (length response_length): 1 = model token, 0 = tool/env token' },
  { name: 'rollout_log_probs', type: 'float32[]', description: 'response-only sampling logprobs, 0.0 on non-trainable tokens' },
  { name: 'weight_versions', type: 'string[]', description: 'the distinct policy versions of the trained tokens, in order of first use' },
  { name: 'status', type: 'string', description: 'completed | truncated | aborted | failed (in_progress and unknown become aborted)' },
  { name: 'metadata', type: 'json', description: '{ session_id, group_id, call_ids, loss_weight, advantage, tokentap_rollout_id, tokentap_status }' },
  { name: 'session_id', type: 'string', description: 'the recorded session' },
];

const DESCRIPTION = 'slime Sample.to_dict() rows (tokens, response_length, response-only loss_mask and rollout_log_probs, reward, status)';

/**
 * slime rows: `Sample.to_dict()`-compatible dicts, one per sample, siblings of one rollout sharing `rollout_id`.
 *
 * @example
 * const row = createSlimeAdapter().toRow(exportSample); // { group_index, index, rollout_id, tokens, ... }
 */
export function createSlimeAdapter(): TrainerAdapter {
  return {
    format: 'slime',
    shape: undefined,
    description: DESCRIPTION,
    needs: { reward: true, advantage: false, conversation: false },
    columns: COLUMNS,
    toRow: toSlimeRow,
  };
}

/**
 * A sample's status as a slime status: a rollout that is still open or whose end is not known did not finish
 * cleanly as far as the record shows, which slime calls `aborted`.
 *
 * @example toSlimeStatus('in_progress'); // 'aborted'
 */
export function toSlimeStatus(status: SampleStatus): SlimeStatus {
  return status === 'in_progress' || status === 'unknown' ? 'aborted' : status;
}

function toSlimeRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { sample } = exported;
  if (sample.reward === undefined) return { skip: 'no_reward' };
  const split = sample.promptLength;
  return {
    group_index: exported.groupIndex,
    index: exported.index,
    rollout_id: exported.rolloutIndex,
    prompt: '',
    tokens: sample.tokens.slice(),
    response_length: sample.tokens.length - split,
    label: null,
    reward: sample.reward,
    loss_mask: sample.lossMask.slice(split),
    rollout_log_probs: sample.logprobs.slice(split),
    weight_versions: [...exported.policyVersions],
    status: toSlimeStatus(sample.status),
    metadata: {
      session_id: sample.sessionId,
      group_id: sample.groupId ?? null,
      call_ids: [...sample.callIds],
      loss_weight: exported.lossWeight,
      advantage: exported.advantage,
      tokentap_rollout_id: sample.rolloutId,
      tokentap_status: sample.status,
    },
    session_id: sample.sessionId,
  };
}

/** `--format slime` */
export const SLIME_FORMAT: TrainerFormat = { format: 'slime', description: DESCRIPTION, create: () => createSlimeAdapter() };
