import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';
import { actionRanges } from './action-ranges.js';

// The dict an OpenRLHF AgentExecutor's execute() returns (shared/reference/trainer-formats.md 3a), plus session_id
// for tracing: an executor that replays these rows returns every key but session_id.
const COLUMNS: readonly ColumnSpec[] = [
  { name: 'prompt', type: 'string', description: 'always "" (the prompt is in observation_tokens)' },
  { name: 'label', type: 'string', description: 'always ""' },
  { name: 'observation_tokens', type: 'int32[]', description: 'the whole sequence: prompt, model actions and environment feedback' },
  { name: 'action_ranges', type: 'json', description: '[start, end) of each run of model-sampled tokens in observation_tokens' },
  { name: 'rollout_log_probs', type: 'float32[]', description: 'full length (one per observation token), 0.0 on non-action tokens' },
  { name: 'reward', type: 'float32', description: "the rollout's reward" },
  { name: 'scores', type: 'float32', description: 'the reward again (OpenRLHF uses scores for dynamic filtering and logs)' },
  { name: 'truncated', type: 'bool', description: 'the sample ended truncated (finish_reason length, or the rollout ended truncated)' },
  { name: 'extra_logs', type: 'json', description: '{ loss_weight, num_turns }: numbers OpenRLHF logs as metrics' },
  { name: 'session_id', type: 'string', description: 'the recorded session (not part of the execute() dict)' },
];

const DESCRIPTION = 'OpenRLHF AgentExecutor execute() dicts (observation_tokens, action_ranges, full-length rollout_log_probs, reward)';

/**
 * OpenRLHF rows: what an `AgentExecutor.execute()` returns, one per sample, action ranges from the mask's runs.
 *
 * @example
 * const row = createOpenRlhfAdapter().toRow(exportSample); // { observation_tokens, action_ranges: [[12, 40]], ... }
 */
export function createOpenRlhfAdapter(): TrainerAdapter {
  return {
    format: 'openrlhf',
    shape: undefined,
    description: DESCRIPTION,
    needs: { reward: true, advantage: false, conversation: false },
    columns: COLUMNS,
    toRow: toOpenRlhfRow,
  };
}

function toOpenRlhfRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { sample } = exported;
  if (sample.reward === undefined) return { skip: 'no_reward' };
  return {
    prompt: '',
    label: '',
    observation_tokens: sample.tokens.slice(),
    action_ranges: actionRanges(sample.lossMask),
    rollout_log_probs: sample.logprobs.slice(),
    reward: sample.reward,
    scores: sample.reward,
    truncated: sample.status === 'truncated',
    extra_logs: { loss_weight: exported.lossWeight, num_turns: sample.callIds.length },
    session_id: sample.sessionId,
  };
}

/** `--format openrlhf` */
export const OPENRLHF_FORMAT: TrainerFormat = { format: 'openrlhf', description: DESCRIPTION, create: () => createOpenRlhfAdapter() };
