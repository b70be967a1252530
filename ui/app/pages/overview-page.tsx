/** #/overview — the dataset's figures (`tokentap stats --json`) as plots. */
import { useContext, useState } from 'preact/hooks';
import type { StatsResponse } from '../../viewer-api.js';
import { apiPath } from '../api/api-client.js';
import { RefreshContext, useApi } from '../api/use-api.js';
import { BarList, Histogram } from '../components/plots.js';
import { EmptyState, ErrorBanner, Loading } from '../components/status-views.js';
import { formatCount, formatScore } from '../logic/format.js';

/** A record of counts out of the loosely typed stats (fields the server adds later stay readable). */
function counts(value: unknown): Record<string, number> {
  if (value === null || typeof value !== 'object') return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && entry[1] > 0));
}

function number(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

export function OverviewPage() {
  // the figures run the export's pipeline over the whole store: refetched when asked, not on every store change
  const [reload, setReload] = useState(0);
  const refresh = useContext(RefreshContext);
  const [loadedAt, setLoadedAt] = useState(refresh.changes);
  const state = useApi<StatsResponse>(apiPath('/stats'), { reload });
  const stats = state.data;
  const refreshButton = (
    <button
      type="button"
      data-testid="overview-refresh"
      onClick={() => {
        setLoadedAt(refresh.changes);
        setReload(reload + 1);
      }}
    >
      {state.loading ? 'computing…' : refresh.changes !== loadedAt ? 'the store changed: refresh' : 'refresh'}
    </button>
  );
  if (stats === null) return state.error ? <ErrorBanner error={state.error} /> : <Loading what="the dataset's figures" />;
  const summary = stats.summary;
  const samples = number(summary.samples) ?? 0;
  const policyVersions = { ...stats.policyVersions };
  const unversioned = number(stats.unversionedSamples);
  if (unversioned) policyVersions['(unversioned)'] = unversioned;
  // trained tokens per version (newer servers; absent, the plot says none)
  const policyTokens = counts(stats.policyVersionTokens);
  const unversionedTokens = number(stats.unversionedTokens);
  if (unversionedTokens) policyTokens['(unversioned)'] = unversionedTokens;
  return (
    <section class="tt-page" data-testid="overview-page">
      {state.error ? <ErrorBanner error={state.error} /> : null}
      <div class="tt-page-head">
        <h1>Overview</h1>
        {refreshButton}
      </div>
      <dl class="tt-facts" data-testid="overview-summary">
        <dt>sessions</dt>
        <dd>{formatCount(number(summary.sessions))}</dd>
        <dt title="as the export groups rollouts: a session without a group is a group of its own">export groups</dt>
        <dd>{formatCount(number(summary.groups))}</dd>
        <dt>samples</dt>
        <dd data-testid="overview-samples">{formatCount(samples)}</dd>
        <dt>tokens</dt>
        <dd>{formatCount(number(summary.tokens))}</dd>
        <dt>trained tokens</dt>
        <dd>{formatCount(number(summary.trainedTokens))}</dd>
        <dt>rollouts</dt>
        <dd>{formatCount(number(stats.rollouts))}</dd>
        {stats.rewards ? (
          <>
            <dt>reward</dt>
            <dd>
              mean {formatScore(stats.rewards.mean)} ± {formatScore(stats.rewards.std)} [{formatScore(stats.rewards.min)},{' '}
              {formatScore(stats.rewards.max)}]
            </dd>
          </>
        ) : null}
      </dl>
      {samples === 0 ? (
        <EmptyState>No samples yet: the plots fill in as sessions are recorded.</EmptyState>
      ) : (
        <div class="tt-plots">
          <figure>
            <figcaption>Sample length (tokens)</figcaption>
            <Histogram bins={stats.lengths} label="sample lengths" testId="plot-lengths" />
          </figure>
          <figure>
            <figcaption>Trained tokens per sample</figcaption>
            <Histogram bins={stats.trainedLengths} label="trained lengths" testId="plot-trained-lengths" />
          </figure>
          <figure>
            <figcaption>Reward per rollout {stats.rewards ? `(${stats.rewards.count})` : ''}</figcaption>
            {stats.rewards ? <Histogram bins={stats.rewards.histogram} label="rewards" testId="plot-rewards" /> : <p class="tt-muted">No rewards.</p>}
          </figure>
          <figure>
            <figcaption>Chain breaks by drift kind</figcaption>
            <BarList entries={counts(summary.drift)} testId="plot-drift" />
          </figure>
          <figure>
            <figcaption>Samples per policy version</figcaption>
            <BarList entries={policyVersions} testId="plot-policy-versions" />
          </figure>
          <figure>
            <figcaption>Trained tokens per policy version</figcaption>
            <BarList entries={policyTokens} testId="plot-policy-tokens" />
          </figure>
          <figure>
            <figcaption>Samples per status</figcaption>
            <BarList entries={counts(stats.statuses)} testId="plot-statuses" />
          </figure>
          <figure>
            <figcaption>Left out, and why</figcaption>
            <BarList entries={{ ...counts(summary.dropped), ...counts(summary.skippedCalls) }} testId="plot-dropped" />
          </figure>
        </div>
      )}
    </section>
  );
}
