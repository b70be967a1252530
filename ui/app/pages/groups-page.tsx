/** #/groups — the groups, with how many rollouts each has and their rewards. */
import type { GroupListResponse } from '../../viewer-api.js';
import { apiPath } from '../api/api-client.js';
import { useApi } from '../api/use-api.js';
import { EmptyState, ErrorBanner, Loading } from '../components/status-views.js';
import { formatCount, formatScore, formatTime } from '../logic/format.js';
import { groupHref } from '../logic/route.js';

export function GroupsPage() {
  const state = useApi<GroupListResponse>(apiPath('/groups'), { live: true });
  const groups = state.data?.groups ?? null;
  return (
    <section class="tt-page" data-testid="groups-page">
      <div class="tt-page-head">
        <h1>Groups</h1>
        <p class="tt-counts">{groups === null ? '' : `${formatCount(groups.length)} ${groups.length === 1 ? 'group' : 'groups'}`}</p>
      </div>
      {state.error ? <ErrorBanner error={state.error} /> : null}
      {groups === null ? (
        state.loading ? (
          <Loading what="groups" />
        ) : null
      ) : groups.length === 0 ? (
        <EmptyState>No groups: rollouts recorded with a group id (the rollout API, or the x-tokentap-group header) are listed here.</EmptyState>
      ) : (
        <div class="tt-table-wrap">
          <table class="tt-table" data-testid="groups-table">
            <thead>
              <tr>
                <th>group</th>
                <th class="tt-num">rollouts</th>
                <th class="tt-num">rewarded</th>
                <th class="tt-num">mean reward</th>
                <th>last call</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((group) => (
                <tr key={group.groupId} data-testid="group-row" data-group-id={group.groupId}>
                  <td class="tt-id">
                    <a href={groupHref(group.groupId)}>{group.groupId}</a>
                  </td>
                  <td class="tt-num">{formatCount(group.sessions)}</td>
                  <td class="tt-num">{formatCount(group.rewarded)}</td>
                  <td class="tt-num">{formatScore(group.rewardMean)}</td>
                  <td class="tt-small">{formatTime(group.lastCallAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
