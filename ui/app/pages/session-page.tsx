/**
 * #/sessions/:id — one session: its calls on a timeline (click one for its own messages), the conversation as its
 * harness saw it, and the samples it yields under each strategy with the verifier's verdict.
 */
import { useState } from 'preact/hooks';
import type { CallDetail, SessionDetail } from '../../viewer-api.js';
import { apiPath } from '../api/api-client.js';
import { useApi } from '../api/use-api.js';
import { CallsTimeline } from '../components/calls-timeline.js';
import { Conversation } from '../components/conversation.js';
import { FoldedText } from '../components/folded-text.js';
import { SamplesTabs } from '../components/samples-tabs.js';
import { ErrorBanner, Loading } from '../components/status-views.js';
import { formatCount, formatCounts, formatScore, formatTime } from '../logic/format.js';
import { groupHref } from '../logic/route.js';

export function SessionPage({ sessionId }: { sessionId: string }) {
  const [live, setLive] = useState(true);
  const state = useApi<SessionDetail>(apiPath(`/sessions/${encodeURIComponent(sessionId)}`), { live });
  const [selectedCall, setSelectedCall] = useState<string | null>(null);
  const detail = state.data;
  // a session still recording is refetched on each store change; a finished one is not (each refetch reconstructs it)
  const recording = detail === null || detail.session.status === 'open' || detail.calls.some((call) => call.status === 'in_progress');
  if (recording !== live) setLive(recording);
  if (detail === null) return state.error ? <ErrorBanner error={state.error} /> : <Loading what="the session" />;
  const { session } = detail;
  return (
    <section class="tt-page" data-testid="session-page" data-session-id={session.id}>
      {state.error ? <ErrorBanner error={state.error} /> : null}
      <div class="tt-page-head">
        <h1>
          Session <span class="tt-id">{session.id}</span>
        </h1>
        <span class={`tt-status tt-status-${session.status}`}>{session.status}</span>
      </div>
      <dl class="tt-facts" data-testid="session-facts">
        <dt>group</dt>
        <dd>{session.groupId === null ? '–' : <a href={groupHref(session.groupId)}>{session.groupId}</a>}</dd>
        <dt>reward</dt>
        <dd>{formatScore(session.reward)}</dd>
        <dt>calls</dt>
        <dd>
          {formatCount(session.callCount)} ({formatCounts(session.callStatuses)})
        </dd>
        <dt>tokens</dt>
        <dd>
          {formatCount(session.promptTokens)} prompt · {formatCount(session.completionTokens)} completion
        </dd>
        <dt>drift</dt>
        <dd>{formatCounts(session.drift)}</dd>
        <dt>origin</dt>
        <dd>{session.origin}</dd>
        <dt>front doors</dt>
        <dd>{session.frontDoors.join(', ') || '–'}</dd>
        <dt>models</dt>
        <dd>{session.models.join(', ') || '–'}</dd>
        <dt>created</dt>
        <dd>{formatTime(session.createdAt)}</dd>
        <dt>last call</dt>
        <dd>{formatTime(session.lastCallAt)}</dd>
      </dl>
      {Object.keys(session.metadata).length > 0 ? (
        <details class="tt-metadata">
          <summary>metadata</summary>
          <FoldedText text={JSON.stringify(session.metadata, null, 2)} class="tt-json" />
        </details>
      ) : null}

      <h2>Calls</h2>
      <CallsTimeline calls={detail.calls} selected={selectedCall} onSelect={(callId) => setSelectedCall(selectedCall === callId ? null : callId)} />
      {selectedCall === null ? null : <CallMessages callId={selectedCall} onClose={() => setSelectedCall(null)} />}

      <div class="tt-columns">
        <div class="tt-column">
          <h2>Conversation</h2>
          <Conversation messages={detail.conversation} callSeqs={new Map(detail.calls.map((call) => [call.id, call.seq]))} />
        </div>
        <div class="tt-column">
          <h2>Samples</h2>
          <SamplesTabs sessionId={session.id} samples={detail.samples} />
          {detail.skipped.length === 0 ? null : (
            <>
              <h3>Calls that became no sample</h3>
              <ul class="tt-skipped" data-testid="skipped-calls">
                {detail.skipped.map((skipped) => (
                  <li key={skipped.callId}>
                    call #{skipped.seq} ({skipped.status}): {skipped.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      </div>
    </section>
  );
}

function CallMessages({ callId, onClose }: { callId: string; onClose: () => void }) {
  const state = useApi<CallDetail>(apiPath(`/calls/${encodeURIComponent(callId)}`));
  return (
    <div class="tt-call-detail" data-testid="call-detail" data-call-id={callId}>
      <div class="tt-call-detail-head">
        <h3>
          Call {state.data ? `#${state.data.call.seq}` : ''} <span class="tt-id">{callId}</span>
        </h3>
        <button type="button" class="tt-link-button" onClick={onClose}>
          close
        </button>
      </div>
      {state.error ? <ErrorBanner error={state.error} /> : null}
      {state.data === null ? (
        state.loading ? (
          <Loading what="the call" />
        ) : null
      ) : (
        <Conversation messages={state.data.messages} testId="call-messages" />
      )}
    </div>
  );
}
