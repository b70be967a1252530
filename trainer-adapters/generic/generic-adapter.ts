import type { ExportSample } from '../export-sample.js';
import type { ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'session_id', type: 'string', description: 'the recorded session' },
  {
    name: 'rollout_id',
    type: 'string',
    description: "the rollout (the session id unless the rollout API said otherwise); a rollout's samples share it",
  },
  { name: 'sample_index', type: 'int32', description: "0-based index of the sample among its rollout's exported samples" },
  { name: 'group_id', type: 'string', nullable: true, description: "the rollout's group (GRPO group / task id); null when it has none" },
  { name: 'tokens', type: 'int32[]', description: 'the whole sequence: prompt, sampled completions, tool results and later prompts' },
  { name: 'loss_mask', type: 'uint8[]', description: '1 where the backend sampled the token in one of the calls, 0 for context' },
  { name: 'logprobs', type: 'float32[]', description: "the backend's logprob of each sampled token; 0 where loss_mask is 0" },
  { name: 'prompt_length', type: 'int32', description: "length of the first call's prompt: tokens before it are never sampled" },
  { name: 'reward', type: 'float64', nullable: true, description: "the rollout's reward; null when it has none" },
  { name: 'advantage', type: 'float32', nullable: true, description: "the rollout's advantage under the export's estimator; null without one" },
  { name: 'loss_weight', type: 'float32', description: '1/k over the k exported trainable samples of the rollout (0 for untrained samples)' },
  { name: 'status', type: 'string', description: 'completed | truncated | failed | aborted | in_progress | unknown' },
  { name: 'faithful', type: 'bool', description: 'false when any token id came from retokenized text rather than the backend' },
  { name: 'call_ids', type: 'string[]', description: 'the recorded calls merged into the sample, in order' },
  { name: 'policy_versions', type: 'string[]', description: 'the distinct policy versions of the trained tokens, in order of first use' },
  { name: 'provenance', type: 'json', description: '{ chain_index, drift: the drift kinds that opened the chain, reward_components, call_rewards }' },
];

const DESCRIPTION = "tokentap's own token-level rows: the whole sample with its mask, logprobs, reward, advantage and ids";

/**
 * The generic rows: every fact of a sample, under tokentap's own names, for any trainer or analysis. One format
 * under two names (`jsonl`, `parquet`): the file type always comes from the output path.
 *
 * @example
 * const row = createGenericAdapter('jsonl').toRow(exportSample); // { session_id, tokens, loss_mask, ... }
 */
export function createGenericAdapter(format: 'jsonl' | 'parquet'): TrainerAdapter {
  return {
    format,
    shape: undefined,
    description: DESCRIPTION,
    needs: { reward: false, advantage: false, conversation: false },
    columns: COLUMNS,
    toRow: toGenericRow,
  };
}

function toGenericRow(exported: ExportSample): ExportRow {
  const { sample } = exported;
  return {
    session_id: sample.sessionId,
    rollout_id: sample.rolloutId,
    sample_index: exported.rolloutSampleIndex,
    group_id: sample.groupId ?? null,
    tokens: sample.tokens.slice(),
    loss_mask: sample.lossMask.slice(),
    logprobs: sample.logprobs.slice(),
    prompt_length: sample.promptLength,
    reward: sample.reward ?? null,
    advantage: exported.advantage,
    loss_weight: exported.lossWeight,
    status: sample.status,
    faithful: sample.faithful,
    call_ids: [...sample.callIds],
    policy_versions: [...exported.policyVersions],
    provenance: {
      chain_index: sample.chainIndex,
      drift: sample.diagnostics.map((diagnostic) => diagnostic.kind),
      reward_components: sample.rewardComponents ?? null,
      call_rewards: (sample.callRewards ?? []).map(({ callId, value, components }) => ({ call_id: callId, value, components: components ?? null })),
    },
  };
}

/** `--format jsonl`: the generic rows (the file type comes from `--out`). */
export const JSONL_FORMAT: TrainerFormat = {
  format: 'jsonl',
  description: `${DESCRIPTION} (same columns as parquet)`,
  create: () => createGenericAdapter('jsonl'),
};

/** `--format parquet`: the generic rows (the file type comes from `--out`). */
export const PARQUET_FORMAT: TrainerFormat = {
  format: 'parquet',
  description: `${DESCRIPTION} (same columns as jsonl)`,
  create: () => createGenericAdapter('parquet'),
};
