import { readFileSync } from 'node:fs';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { ExportSelection, RewardOverride } from '../../export/export-options.js';
import { parseExportQuery } from '../../export/parse-export-query.js';
import { withFlagNames } from './name-export-flags.js';
import { readRewardOverrides } from '../../export/read-reward-overrides.js';
import type { Store } from '../../store/index.js';
import { UsageError } from '../usage-error.js';

/** The selection flags `export` and `stats` share: filters, strategy, advantages (docs/export.md). */
export const EXPORT_SELECTION_OPTIONS = {
  strategy: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  tags: { type: 'string' },
  split: { type: 'string' },
  status: { type: 'string' },
  sessions: { type: 'string' },
  groups: { type: 'string' },
  'reward-min': { type: 'string' },
  'reward-max': { type: 'string' },
  'faithful-only': { type: 'boolean' },
  'min-length': { type: 'string' },
  'max-length': { type: 'string' },
  'max-staleness': { type: 'string' },
  'policy-versions': { type: 'string' },
  advantage: { type: 'string' },
  'no-std-norm': { type: 'boolean' },
  epsilon: { type: 'string' },
  'drop-zero-variance': { type: 'boolean' },
  rewards: { type: 'string' },
  'fail-on-empty': { type: 'boolean' },
} as const;

export const EXPORT_SELECTION_HELP = `Selection (rollouts first, then samples; every drop is counted in the summary):
  --strategy merge|per-call   how calls become samples (default merge)
  --since T / --until T       sessions created in [since, until): ISO date or ms since the epoch
  --tags a,b                  rollouts carrying all these tags
  --split train|val|test      rollouts of this split
  --sessions id,id / --groups id,id   only these sessions / groups
  --reward-min X / --reward-max X     rollout reward within the range (unrewarded rollouts fail it)
  --status s,s                sample statuses kept (default completed,truncated)
  --faithful-only             drop samples with retokenized ids
  --min-length N / --max-length N     total tokens per sample
  --max-staleness N           trained tokens from the newest N+1 policy versions only
  --policy-versions v,v       trained tokens from these policy versions only
Advantages:
  --advantage grpo|rloo|dr-grpo|none  per-group estimator (default grpo)
  --no-std-norm               grpo without dividing by the group's std
  --epsilon X                 added to the std (default 1e-6)
  --drop-zero-variance        drop groups whose rewards are all equal
Rewards and empty results:
  --rewards FILE              session rewards for this run only, read-only on the database: JSON Lines of
                              {"session": ID, "reward": X, "components": {...}} (docs/rollouts.md)
  --fail-on-empty             exit 1, writing nothing, when no sample is left (pass it in CI and scripts;
                              without it an empty selection warns on stderr and exits 0)
`;

/** CLI flag -> the pull API's query key: one parser (export/parse-export-query.ts) serves both. */
const QUERY_KEYS: Record<string, string> = {
  strategy: 'strategy',
  since: 'since',
  until: 'until',
  tags: 'tags',
  split: 'split',
  status: 'status',
  sessions: 'sessionIds',
  groups: 'groupIds',
  'reward-min': 'rewardMin',
  'reward-max': 'rewardMax',
  'faithful-only': 'faithfulOnly',
  'min-length': 'minLength',
  'max-length': 'maxLength',
  'max-staleness': 'maxStaleness',
  'policy-versions': 'policyVersions',
  advantage: 'estimator',
  epsilon: 'epsilon',
  'drop-zero-variance': 'dropZeroVarianceGroups',
};

/**
 * Parsed selection flags, through the same parser as the pull API's query string.
 *
 * @example parseSelectionFlags({ split: 'train', 'reward-min': '0' }) // { filters: { split: 'train', rewardMin: 0 }, ... }
 */
export function parseSelectionFlags(values: Record<string, string | boolean | undefined>): ExportSelection {
  const query: Record<string, string | undefined> = {};
  for (const [flag, key] of Object.entries(QUERY_KEYS)) {
    const value = values[flag];
    if (value !== undefined) query[key] = String(value);
  }
  if (values['no-std-norm'] === true) query.normalizeStd = 'false';
  // a bad value is an EXPORT_INVALID_OPTION, a user's mistake: one line, exit 2 (cli/report-failure.ts), named by its flag
  try {
    return parseExportQuery(query);
  } catch (error) {
    throw withFlagNames(error, QUERY_KEYS, values);
  }
}

/** Problems listed by line before the rest are only counted. */
const LISTED_PROBLEMS = 20;

/**
 * The `--rewards FILE` of export and stats (undefined without it), checked against the database before anything is
 * written: every line that cannot be used is named with its line number (EXPORT_INVALID_REWARDS, exit 2).
 *
 * @example const rewardOverrides = readRewardsOption('rewards.jsonl', store); // Map { 'r-1' => { value: 1, components: null } }
 */
export function readRewardsOption(path: string | undefined, store: Pick<Store, 'getRollout'>): Map<string, RewardOverride> | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --rewards ${path}: ${(error as Error).message}`, { cause: error });
  }
  const { overrides, problems } = readRewardOverrides(text, { hasSession: (sessionId) => store.getRollout(sessionId) !== null });
  if (problems.length === 0) return overrides;
  const listed = problems.slice(0, LISTED_PROBLEMS).map((problem) => `\n  ${path}:${problem.line}: ${problem.message}`);
  const more = problems.length > LISTED_PROBLEMS ? `\n  ... and ${problems.length - LISTED_PROBLEMS} more` : '';
  throw new TokentapError('EXPORT_INVALID_REWARDS', {
    message: `--rewards ${path}: ${problems.length} line${problems.length === 1 ? '' : 's'} cannot be used, nothing was written${listed.join('')}${more}`,
    details: { path, problems },
  });
}
