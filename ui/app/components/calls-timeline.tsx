/** A session's calls: a bar per call on one time axis (start, time to first token, duration) beside its numbers. */
import type { CallTimelineItem } from '../../viewer-api.js';
import { formatCount, formatDuration, formatScore, formatTime } from '../logic/format.js';
import { timelineBars } from '../logic/timeline-scale.js';

export function CallsTimeline(props: { calls: readonly CallTimelineItem[]; selected: string | null; onSelect: (callId: string) => void }) {
  const timeline = timelineBars(props.calls, Date.now());
  if (props.calls.length === 0) return <p class="tt-muted">No calls.</p>;
  return (
    <div class="tt-table-wrap tt-timeline-wrap">
      <table class="tt-table tt-timeline" data-testid="calls-timeline">
        <thead>
          <tr>
            <th class="tt-num">#</th>
            <th class="tt-timeline-axis">
              {formatTime(timeline.start)} → +{formatDuration(timeline.end - timeline.start)}
            </th>
            <th>status</th>
            <th class="tt-num">prompt</th>
            <th class="tt-num">completion</th>
            <th class="tt-num">first token</th>
            <th class="tt-num">duration</th>
            <th title="how the completion ended, and the call's flags">finish · flags</th>
            <th>replica</th>
            <th>policy</th>
            <th class="tt-num">reward</th>
          </tr>
        </thead>
        <tbody>
          {props.calls.map((call, index) => {
            const bar = timeline.bars[index];
            return (
              <tr
                key={call.id}
                class={`tt-call-row${props.selected === call.id ? ' tt-selected' : ''}`}
                data-testid="call-row"
                data-call-id={call.id}
                tabIndex={0}
                onClick={() => props.onSelect(call.id)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' || event.key === ' ') {
                    event.preventDefault();
                    props.onSelect(call.id);
                  }
                }}
                title={`${call.frontDoor} ${call.path} · ${call.requestedModel ?? ''}${call.backendModel && call.backendModel !== call.requestedModel ? ` → ${call.backendModel}` : ''}`}
              >
                <td class="tt-num">{call.seq}</td>
                <td class="tt-timeline-cell">
                  {bar ? (
                    <span
                      class={`tt-timeline-bar tt-status-bg-${call.status}${bar.open ? ' tt-open' : ''}`}
                      style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
                    >
                      {bar.firstToken !== null ? <span class="tt-timeline-ttft" style={{ width: `${bar.firstToken}%` }} /> : null}
                    </span>
                  ) : null}
                </td>
                <td>
                  <span class={`tt-status tt-status-${call.status}`}>{call.status}</span>
                  {call.httpStatus !== null && call.httpStatus !== 200 ? <span class="tt-muted"> {call.httpStatus}</span> : null}
                  {call.error ? (
                    <div class="tt-call-error">
                      {call.error.code ? `${call.error.code}: ` : ''}
                      {call.error.message}
                    </div>
                  ) : null}
                </td>
                <td class="tt-num">{formatCount(call.promptTokens)}</td>
                <td class="tt-num">{formatCount(call.completionTokens)}</td>
                <td class="tt-num">{formatDuration(call.timeToFirstTokenMs)}</td>
                <td class="tt-num">{formatDuration(call.totalMs)}</td>
                <td class="tt-small">
                  {call.flags.map((flag) => (
                    <span key={flag} class="tt-tag">
                      {flag}
                    </span>
                  ))}
                  {call.finishReason ? <span class="tt-muted"> {call.finishReason}</span> : null}
                </td>
                <td class="tt-small">{call.backendId ?? '–'}</td>
                <td class="tt-small">{call.policyVersion ?? call.weightVersion ?? '–'}</td>
                <td class="tt-num">{formatScore(call.reward)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
