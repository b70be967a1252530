/** #/groups/:id — a group's rollouts side by side: reward, advantage, tokens, status, and where each leaves the shared prefix. */
import type { GroupDetail } from '../../viewer-api.js';
import { apiPath } from '../api/api-client.js';
import { useApi } from '../api/use-api.js';
import { EmptyState, ErrorBanner, Loading } from '../components/status-views.js';
import { formatCount, formatScore } from '../logic/format.js';
import { sampleHref, sessionHref } from '../logic/route.js';
import { visibleWhitespace } from '../logic/token-display.js';

export function GroupPage({ groupId }: { groupId: string }) {
  const state = useApi<GroupDetail>(apiPath(`/groups/${encodeURIComponent(groupId)}`), { live: true });
  const group = state.data;
  if (group === null) return state.error ? <ErrorBanner error={state.error} /> : <Loading what="the group" />;
  const largest = Math.max(1e-9, ...group.rollouts.map((rollout) => Math.abs(rollout.advantage ?? 0)));
  return (
    <section class="tt-page" data-testid="group-page" data-group-id={group.groupId}>
      {state.error ? <ErrorBanner error={state.error} /> : null}
      <div class="tt-page-head">
        <h1>
          Group <span class="tt-id">{group.groupId}</span>
        </h1>
        <p class="tt-counts">
          {formatCount(group.rollouts.length)} rollouts · shared prefix {formatCount(group.sharedPrefix)} tokens · advantages by {group.estimator} ·{' '}
          <a href={`#/?group=${encodeURIComponent(group.groupId)}`}>in the sessions table</a>
        </p>
      </div>
      {group.rollouts.length === 0 ? (
        <EmptyState>This group has no rollouts.</EmptyState>
      ) : (
        <div class="tt-rollouts" data-testid="rollouts">
          {group.rollouts.map((rollout) => {
            const advantage = rollout.advantage ?? 0;
            const share = (Math.abs(advantage) / largest) * 50;
            return (
              <article key={rollout.session.id} class="tt-rollout" data-testid="rollout" data-session-id={rollout.session.id}>
                <h2 class="tt-id">
                  <a href={sessionHref(rollout.session.id)}>{rollout.session.id}</a>
                </h2>
                <span class={`tt-status tt-status-${rollout.session.status}`}>{rollout.session.status}</span>
                <dl class="tt-facts">
                  <dt>reward</dt>
                  <dd data-testid="rollout-reward">{formatScore(rollout.reward)}</dd>
                  <dt>advantage</dt>
                  <dd data-testid="rollout-advantage">{formatScore(rollout.advantage)}</dd>
                  <dt>tokens</dt>
                  <dd>{formatCount(rollout.tokens)}</dd>
                  <dt>trained</dt>
                  <dd>{formatCount(rollout.trainedTokens)}</dd>
                  <dt>calls</dt>
                  <dd>{formatCount(rollout.session.callCount)}</dd>
                </dl>
                <div class="tt-advantage" title={`advantage ${formatScore(rollout.advantage)}`} aria-hidden="true">
                  <span class="tt-advantage-axis" />
                  {rollout.advantage === null ? null : (
                    <span
                      class={`tt-advantage-bar ${advantage >= 0 ? 'tt-positive' : 'tt-negative'}`}
                      style={{ left: advantage >= 0 ? '50%' : `${50 - share}%`, width: `${share}%` }}
                    />
                  )}
                </div>
                <div class="tt-divergence" data-testid="divergence" data-diverges-at={rollout.divergesAt ?? ''}>
                  {rollout.divergesAt === null ? (
                    <span class="tt-muted">is the shared prefix</span>
                  ) : (
                    <>
                      <div>
                        leaves the prefix at token{' '}
                        <a href={sampleHref(rollout.session.id, 'merge', 0, rollout.divergesAt)}>{formatCount(rollout.divergesAt)}</a>
                      </div>
                      {rollout.closest === null ? null : (
                        <div data-testid="closest" data-shared-tokens={rollout.closest.sharedTokens}>
                          {rollout.closest.sharedTokens === group.sharedPrefix ? (
                            <strong>parts from every other rollout here</strong>
                          ) : (
                            <>
                              closest: <a href={sessionHref(rollout.closest.sessionId)}>{rollout.closest.sessionId}</a>
                              {rollout.closest.sharedTokens === rollout.tokens
                                ? ', the same throughout'
                                : `, the same for ${formatCount(rollout.closest.sharedTokens)} tokens`}
                            </>
                          )}
                        </div>
                      )}
                      {rollout.divergence === null ? null : (
                        <pre class="tt-excerpt">
                          {rollout.divergence.text !== null
                            ? visibleWhitespace(rollout.divergence.text)
                            : rollout.divergence.tokenIds.map((id) => `⟨${id}⟩`).join('')}
                        </pre>
                      )}
                    </>
                  )}
                </div>
              </article>
            );
          })}
        </div>
      )}
    </section>
  );
}
