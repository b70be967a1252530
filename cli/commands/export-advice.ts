import { DEFAULT_EXPORT_STATUSES } from '../../export/create-sample-filter.js';
import type { ExportFilters, ExportSelection, ExportSummary } from '../../export/export-options.js';
import { ROLLOUT_FILTER_REASONS } from '../../export/select-rollouts.js';
import type { Store } from '../../store/index.js';

/** What `export` and `stats` tell a user besides the counts: why a dataset is empty, and hints where one helps. */
export interface ExportAdvice {
  /** why the selection holds no sample (the filter or drop that emptied it), or null when it holds some */
  empty: string | null;
  hints: string[];
}

export interface ExportAdviceOptions {
  selection: ExportSelection;
  /** the `--format` asked for (absent for stats) */
  format?: string;
}

/** The rollout-level reasons, in the order a rollout meets them (select-rollouts.ts). */
const ROLLOUT_REASONS: readonly string[] = [...Object.values(ROLLOUT_FILTER_REASONS), 'in_progress', 'invalid_reward'];

const FLAGS: Record<string, [flag: string, key: keyof ExportFilters]> = {
  filter_since: ['--since', 'since'],
  filter_until: ['--until', 'until'],
  filter_tags: ['--tags', 'tags'],
  filter_split: ['--split', 'split'],
  filter_sessions: ['--sessions', 'sessionIds'],
  filter_groups: ['--groups', 'groupIds'],
  filter_reward_min: ['--reward-min', 'rewardMin'],
  filter_reward_max: ['--reward-max', 'rewardMax'],
};

const ADD_REWARDS =
  'add them with the rollout API (POST /tokentap/v1/sessions/{id}/reward), `tokentap reward SESSION VALUE`, ' +
  'or for one export `--rewards FILE` (docs/rollouts.md, "Rewards after the fact")';

/**
 * Reads an export's summary the way a new user needs it (issue 14): a dataset of 0 samples names the stage that
 * emptied it (the rollout filter that matched nothing, open rollouts, or the sample drop that took every sample,
 * with the flag to change); a format that needs rewards on rollouts without them says how to add them; rollouts
 * that all broke at `template-rerender` point to token-faithful mode.
 *
 * @example
 * const { empty, hints } = adviseExport(store, summary, { selection, format: 'verl' });
 * // empty: "0 samples: --split test matched none of the 7 rollouts (sessions per split: train 5, val 1)"
 */
export function adviseExport(store: Pick<Store, 'countExportSessions'>, summary: ExportSummary, options: ExportAdviceOptions): ExportAdvice {
  const hints: string[] = [];
  const noReward = summary.dropped.no_reward ?? 0;
  if (noReward > 0) {
    const format = options.format === undefined ? 'the format' : `--format ${options.format}`;
    hints.push(`${noReward} sample${noReward === 1 ? '' : 's'} dropped as no_reward: ${format} needs a reward per rollout; ${ADD_REWARDS}`);
  }
  const rerender = templateRerenderHint(summary);
  if (rerender !== null) hints.push(rerender);
  return { empty: summary.samples > 0 ? null : explainEmpty(store, summary, options), hints };
}

function templateRerenderHint(summary: ExportSummary): string | null {
  const kinds = Object.entries(summary.drift)
    .filter(([, count]) => count > 0)
    .map(([kind]) => kind);
  if (summary.templateRerenderRollouts === 0 || kinds.some((kind) => kind !== 'template-rerender')) return null;
  const rollouts = summary.templateRerenderRollouts;
  return (
    `${rollouts} rollout${rollouts === 1 ? '' : 's'} broke at template-rerender (the chat template re-rendered earlier turns), ` +
    "so a trajectory exports as several samples: record with `tokentap serve --token-faithful '*'` to keep each one sample (docs/token-faithful.md)"
  );
}

function explainEmpty(store: Pick<Store, 'countExportSessions'>, summary: ExportSummary, options: ExportAdviceOptions): string {
  const total = store.countExportSessions({});
  if (total === 0) return '0 samples: the database holds no session yet (record some through `tokentap serve`)';
  let left = total;
  let emptiedBy: { reason: string; before: number } | null = null;
  for (const reason of ROLLOUT_REASONS) {
    const count = summary.dropped[reason] ?? 0;
    if (count === 0) continue;
    if (left - count <= 0) emptiedBy = { reason, before: left };
    left -= count;
  }
  if (emptiedBy !== null && left <= 0)
    return `0 samples: ${rolloutStage(store, emptiedBy.reason, emptiedBy.before, options.selection.filters ?? {})}`;
  return `0 samples: ${sampleStage(summary, left, options)}`;
}

/** The rollout-level stage that left nothing: a filter that matched none of the rollouts it was given, or their state. */
function rolloutStage(store: Pick<Store, 'countExportSessions'>, reason: string, before: number, filters: ExportFilters): string {
  const rollouts = `${before} rollout${before === 1 ? '' : 's'}`;
  if (reason === 'in_progress') {
    return `the ${rollouts} left are still open (made by the rollout API, never ended): end them (POST /tokentap/v1/sessions/{id}/end) or add in_progress to --status`;
  }
  if (reason === 'invalid_reward') return `the ${rollouts} left hold rewards outside the reward rule (invalid_reward, docs/export.md)`;
  const [flag, key] = FLAGS[reason] as [string, keyof ExportFilters];
  const matched = `${flag} ${formatFilterValue(filters[key], key)} matched none of the ${rollouts}`;
  if (key === 'split') return `${matched} (${splitCounts(store)})`;
  if (key === 'rewardMin' || key === 'rewardMax') return `${matched} (a rollout without a reward fails it; ${ADD_REWARDS})`;
  return matched;
}

function splitCounts(store: Pick<Store, 'countExportSessions'>): string {
  const counts = (['train', 'val', 'test'] as const)
    .map((split) => [split, store.countExportSessions({ split })] as const)
    .filter(([, count]) => count > 0);
  if (counts.length === 0) return 'no session has a split: give one when the session is created, docs/rollouts.md';
  return `sessions per split: ${counts.map(([split, count]) => `${split} ${count}`).join(', ')}`;
}

function formatFilterValue(value: unknown, key: keyof ExportFilters): string {
  if ((key === 'since' || key === 'until') && typeof value === 'number') return new Date(value).toISOString();
  if (Array.isArray(value)) return value.length > 3 ? `${value.slice(0, 3).join(',')},... (${value.length})` : value.join(',');
  return String(value);
}

/** Rollouts were selected, and reconstruction or the sample-level drops left nothing of them. */
function sampleStage(summary: ExportSummary, rollouts: number, options: ExportAdviceOptions): string {
  const selected = `the ${rollouts} selected rollout${rollouts === 1 ? '' : 's'}`;
  const drops = Object.entries(summary.dropped).filter(([reason, count]) => count > 0 && !ROLLOUT_REASONS.includes(reason));
  if (drops.length === 0) {
    const skipped = Object.entries(summary.skippedCalls)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(', ');
    return `${selected} gave no sample${skipped === '' ? '' : ` (calls with no sample: ${skipped}; \`tokentap diagnose SESSION\` says why)`}`;
  }
  const [top] = drops.reduce((best, entry) => (entry[1] > best[1] ? entry : best));
  const listed = drops.map(([reason, count]) => `${reason} ${count}`).join(', ');
  const remedy = sampleRemedy(top, options);
  return `every sample of ${selected} was dropped (${listed})${remedy === null ? '' : `: ${remedy}`}`;
}

function sampleRemedy(reason: string, options: ExportAdviceOptions): string | null {
  const filters = options.selection.filters ?? {};
  if (reason.startsWith('status_')) return `--status keeps ${(filters.status ?? DEFAULT_EXPORT_STATUSES).join(',')}; list the statuses to export`;
  if (reason === 'zero_variance_group') return '--drop-zero-variance left out every group (the rewards within each are all equal)';
  if (reason === 'no_reward')
    return `${options.format === undefined ? 'the format' : `--format ${options.format}`} needs rewards and these rollouts have none`;
  if (reason === 'no_advantage') {
    return options.selection.advantage?.estimator === 'none'
      ? '--advantage none gives no advantage, and the format needs one'
      : `rollouts without a reward get no advantage; ${ADD_REWARDS}`;
  }
  if (reason === 'too_short' || reason === 'too_long') return 'see --min-length / --max-length';
  if (reason === 'stale_policy' || reason === 'policy_version_unknown') return 'see --max-staleness / --policy-versions';
  if (reason === 'not_faithful') return 'every sample holds retokenized ids; leave out --faithful-only';
  return null;
}

/**
 * The advice on stderr, where it is seen when stdout is a pipe or a file: the empty-dataset warning always, hints
 * unless `quiet`.
 *
 * @example writeAdvice(process.stderr, adviseExport(store, summary, { selection }), { quiet: false });
 */
export function writeAdvice(stderr: { write(text: string): unknown }, advice: ExportAdvice, options: { quiet: boolean }): void {
  if (advice.empty !== null) stderr.write(`tokentap: warning: ${advice.empty}\n`);
  if (!options.quiet) for (const hint of advice.hints) stderr.write(`tokentap: hint: ${hint}\n`);
}
