import type { ReconstructStrategy, SampleStatus } from '../reconstruct/index.js';

/**
 * Which rollouts and samples an export takes (docs/export.md, "Filters"). Rollout-level filters choose whole
 * rollouts before advantages are computed (so a group's baseline is over the rollouts exported); sample-level
 * filters then drop single samples, each drop counted by reason.
 */
export interface ExportFilters {
  /** rollout-level: session created at or after / before these times (ms since the epoch) */
  since?: number;
  until?: number;
  /** rollout-level: the rollout carries every one of these tags */
  tags?: string[];
  /** rollout-level: the rollout's split */
  split?: 'train' | 'val' | 'test';
  /** rollout-level: only these rollouts / groups */
  sessionIds?: string[];
  groupIds?: string[];
  /** rollout-level: the rollout's reward lies in [rewardMin, rewardMax]; an unrewarded rollout fails either bound */
  rewardMin?: number;
  rewardMax?: number;
  /** sample-level: the sample's status (after the rollout's end status is applied) is one of these */
  status?: SampleStatus[];
  /** sample-level: drop samples with retokenized ids (`faithful: false`) */
  faithfulOnly?: boolean;
  /** sample-level: total tokens of the sample within [minLength, maxLength] */
  minLength?: number;
  maxLength?: number;
  /**
   * sample-level staleness: keep a sample only if every trained token's policy version is one of the newest
   * `maxStaleness + 1` versions set (store policy-version history; 0 = current only); samples with unversioned
   * trained tokens are dropped when this is set (reason `policy_version_unknown`).
   */
  maxStaleness?: number;
  /** sample-level: keep a sample only if every trained token's policy version is in this list */
  policyVersions?: string[];
}

/** How rewards become advantages (docs/export.md, "Advantages"). */
export type AdvantageEstimator = 'grpo' | 'rloo' | 'dr-grpo' | 'none';

export interface AdvantageOptions {
  /** default `grpo` */
  estimator?: AdvantageEstimator;
  /** grpo only: divide by the group's standard deviation (default true; false = Dr. GRPO's mean-centring) */
  normalizeStd?: boolean;
  /** grpo: added to the std (default 1e-6, as verl and slime) */
  epsilon?: number;
  /** drop whole groups whose rewards do not vary (no learning signal); counted as `zero_variance_group` */
  dropZeroVarianceGroups?: boolean;
}

/** A session reward given for one export only (`tokentap export --rewards FILE`): it stands in for the stored one. */
export interface RewardOverride {
  value: number;
  components: Record<string, number> | null;
}

/** Everything an export run decides, besides where it writes. */
export interface ExportSelection {
  /** default `merge` */
  strategy?: ReconstructStrategy;
  filters?: ExportFilters;
  advantage?: AdvantageOptions;
  /**
   * session id -> the session reward this export uses instead of the stored one (read-only: nothing is written to
   * the store); call rewards stay as stored. See readRewardOverrides (export/read-reward-overrides.ts).
   */
  rewardOverrides?: ReadonlyMap<string, RewardOverride>;
}

/** What an export did, printed by `tokentap export` and returned by the pull API (docs/export.md). */
export interface ExportSummary {
  sessions: number;
  groups: number;
  samples: number;
  tokens: number;
  /** tokens with loss mask 1 */
  trainedTokens: number;
  /**
   * why samples or rollouts were left out, and how many: rollouts outside a rollout-level filter (`filter_split`,
   * `filter_tags`, ...), `in_progress` and `invalid_reward` rollouts, then samples (`status_failed`, `no_reward`,
   * `too_long`, ...)
   */
  dropped: Record<string, number>;
  /** calls that became no sample at reconstruction (in_progress, backend errors, no ids), by reason */
  skippedCalls: Record<string, number>;
  /** chain breaks met while merging, by kind */
  drift: Record<string, number>;
  /** selected rollouts whose chain broke at least once at `template-rerender` (recorded without token-faithful mode) */
  templateRerenderRollouts: number;
  /** units whose selected rollouts' rewards are all equal (a rewarded group of one included): advantage 0, no signal */
  zeroVarianceGroups: number;
  /** bytes written (0 for stats and pull batches) */
  bytes: number;
}
