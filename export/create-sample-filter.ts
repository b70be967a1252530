import type { Sample, SampleStatus } from '../reconstruct/index.js';
import type { PolicyVersionRow } from '../store/index.js';
import type { AdapterNeeds } from '../trainer-adapters/trainer-adapter.js';
import type { ExportFilters } from './export-options.js';
import { newestPolicyVersions } from './newest-policy-versions.js';

/** The statuses an export keeps when `filters.status` is not given: samples of runs that finished. */
export const DEFAULT_EXPORT_STATUSES: readonly SampleStatus[] = ['completed', 'truncated'];

/** Why a sample is left out (its `dropped` reason), or null to keep it. */
export type SampleFilter = (sample: Sample, advantage: number | null) => string | null;

export interface SampleFilterOptions {
  filters?: ExportFilters;
  /** what the format needs: a reward (`no_reward`), an advantage (`no_advantage`) */
  needs?: Partial<Pick<AdapterNeeds, 'reward' | 'advantage'>>;
  /** the store's policy-version history, oldest first; needed only for `filters.maxStaleness` */
  policyHistory?: readonly PolicyVersionRow[];
}

/**
 * The sample-level filters (docs/export.md, "Selection and filters"), applied after advantages are computed. The
 * first failing check names the drop reason, in this order:
 * `status_<status>` (default: keep `completed` and `truncated`; `filters.status` replaces the list), `not_faithful`
 * (`faithfulOnly`), `too_short` / `too_long` (total tokens against minLength / maxLength), `policy_version_unknown`
 * (a trained token without a version, under maxStaleness or policyVersions), `stale_policy` (a trained token's
 * version outside the newest maxStaleness + 1 versions set, or outside policyVersions), `no_trained_tokens`,
 * `no_reward` and `no_advantage` (when the format needs them).
 *
 * @example
 * const dropReason = createSampleFilter({ filters: { maxLength: 4096 }, needs: { reward: true } });
 * dropReason(sample, 0.5); // 'too_long' for a 5000-token sample
 */
export function createSampleFilter(options: SampleFilterOptions = {}): SampleFilter {
  const filters = options.filters ?? {};
  const statuses = new Set(filters.status ?? DEFAULT_EXPORT_STATUSES);
  const fresh = filters.maxStaleness === undefined ? null : newestPolicyVersions(options.policyHistory ?? [], filters.maxStaleness);
  const listed = filters.policyVersions === undefined ? null : new Set(filters.policyVersions);
  return (sample, advantage) => {
    if (!statuses.has(sample.status)) return `status_${sample.status}`;
    if (filters.faithfulOnly === true && !sample.faithful) return 'not_faithful';
    if (filters.minLength !== undefined && sample.tokens.length < filters.minLength) return 'too_short';
    if (filters.maxLength !== undefined && sample.tokens.length > filters.maxLength) return 'too_long';
    const versionReason = policyDropReason(sample, [fresh, listed]);
    if (versionReason !== null) return versionReason;
    if (!sample.lossMask.includes(1)) return 'no_trained_tokens';
    if (options.needs?.reward === true && sample.reward === undefined) return 'no_reward';
    if (options.needs?.advantage === true && advantage === null) return 'no_advantage';
    return null;
  };
}

/** Every trained token's version must lie in each given set; a trained token without a version cannot. */
function policyDropReason(sample: Sample, allowed: ReadonlyArray<Set<string> | null>): string | null {
  const sets = allowed.filter((set): set is Set<string> => set !== null);
  if (sets.length === 0) return null;
  for (const version of trainedPolicyVersions(sample)) {
    if (version === null) return 'policy_version_unknown';
    if (sets.some((set) => !set.has(version))) return 'stale_policy';
  }
  return null;
}

/**
 * The distinct policy versions of a sample's trained tokens (mask 1), in order of first use; null stands for
 * trained tokens of unversioned calls.
 *
 * @example trainedPolicyVersions(sample); // ['v1', 'v2']
 */
export function trainedPolicyVersions(sample: Sample): Array<string | null> {
  const versions = new Set<string | null>();
  for (let index = 0; index < sample.lossMask.length; index++) {
    if (sample.lossMask[index] === 1) versions.add(sample.policyVersions[index] ?? null);
  }
  return [...versions];
}
