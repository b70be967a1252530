import { TokentapError } from '../../core/errors/tokentap-error.js';
import { reconstructSessionReport } from '../../reconstruct/reconstruct-session.js';
import type { SessionReconstruction } from '../../reconstruct/reconstruct-options.js';
import type { CallRow, SessionRow, Store } from '../../store/index.js';
import type { SampleTokens, SessionDetail, StrategyName } from '../viewer-api.js';
import { sessionConversation } from './call-messages.js';
import { toTimelineItem } from './call-timeline.js';
import { toSampleSummary } from './sample-summary.js';
import { toSampleTokens } from './sample-tokens.js';
import type { SessionDriftCache } from './session-drift.js';
import { toListItem } from './session-list.js';
import type { TokenTexts } from './token-texts.js';
import type { ViewerTokenizer } from './viewer-options.js';

/** What the session routes read: the store, the drift cache (filled as a side effect), the tokenizer. */
export interface SessionReading {
  store: Store;
  driftCache: SessionDriftCache;
  tokenizer: ViewerTokenizer | undefined;
  texts: TokenTexts | null;
}

/**
 * GET /ui/api/sessions/:id: the session's row, its calls' timeline, the newest call's conversation, and its samples
 * under both strategies with the verifier's verdict and their breaks; 404 TT_SESSION_NOT_FOUND.
 *
 * @example readSessionDetail(reading, 'run-42').samples.merge.length
 */
export function readSessionDetail(reading: SessionReading, sessionId: string): SessionDetail {
  const session = findSession(reading.store, sessionId);
  const calls = reading.store.listCalls(sessionId);
  const rewards = reading.store.listRewards(sessionId);
  const merge = reconstruct(reading, sessionId, 'merge');
  const perCall = reconstruct(reading, sessionId, 'per-call');
  const drift = reading.driftCache.remember(session, merge);
  const kinds = reading.store.listSessionCallKinds([sessionId]).get(sessionId);
  return {
    session: { ...toListItem(session, drift, kinds), metadata: session.metadata, origin: session.origin },
    calls: calls.map((call) => toTimelineItem(call, rewards)),
    conversation: sessionConversation(reading.store, calls),
    samples: {
      merge: merge.samples.map((sample, index) => toSampleSummary(sample, 'merge', index, calls)),
      'per-call': perCall.samples.map((sample, index) => toSampleSummary(sample, 'per-call', index, calls)),
    },
    skipped: merge.skipped.map((skipped) => ({ callId: skipped.callId, seq: skipped.seq, status: skipped.status, reason: skipped.reason })),
  };
}

/**
 * GET /ui/api/sessions/:id/samples/:strategy/:index: one sample token by token; 404 TT_SESSION_NOT_FOUND or
 * TT_SAMPLE_NOT_FOUND.
 *
 * @example readSampleTokens(reading, 'run-42', 'merge', 0).tokenIds.length
 */
export function readSampleTokens(reading: SessionReading, sessionId: string, strategy: StrategyName, index: number): SampleTokens {
  findSession(reading.store, sessionId);
  const calls = reading.store.listCalls(sessionId);
  const report = reconstruct(reading, sessionId, strategy);
  const sample = report.samples[index];
  if (sample === undefined) {
    throw new TokentapError('TT_SAMPLE_NOT_FOUND', {
      message: `Session ${sessionId} has ${report.samples.length} ${strategy} sample${report.samples.length === 1 ? '' : 's'}: no index ${index}`,
    });
  }
  return { ...toSampleTokens(sample, toSampleSummary(sample, strategy, index, calls), calls, reading.texts), samples: report.samples.length };
}

export function findSession(store: Store, sessionId: string): SessionRow {
  const session = store.getSession(sessionId);
  if (session === null) throw new TokentapError('TT_SESSION_NOT_FOUND', { message: `No session ${JSON.stringify(sessionId)} in this store` });
  return session;
}

/** One call, 404 TT_CALL_NOT_FOUND when the store has none with this id. */
export function findCall(store: Store, callId: string): CallRow {
  const call = store.getCall(callId);
  if (call === null) throw new TokentapError('TT_CALL_NOT_FOUND', { message: `No call ${JSON.stringify(callId)} in this store` });
  return call;
}

function reconstruct(reading: SessionReading, sessionId: string, strategy: StrategyName): SessionReconstruction {
  const tokenizer = reading.tokenizer;
  return reconstructSessionReport(reading.store, sessionId, { strategy, ...(tokenizer === undefined ? {} : { tokenizer }) });
}
