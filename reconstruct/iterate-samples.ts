import type { Store } from '../store/index.js';
import { reconstructSessionReport } from './reconstruct-session.js';
import type { ReconstructOptions, SessionReconstruction, SkippedCall } from './reconstruct-options.js';
import type { Sample } from './sample.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/** What iteration reads: sessions to list, their calls, and bodies at chain breaks. */
export type IterateSource = Pick<Store, 'listCalls' | 'getCallBodies' | 'listSessions'>;

export interface IterateSamplesOptions extends ReconstructOptions {
  /** these sessions, in this order (give this or `all`) */
  sessionIds?: Iterable<string>;
  /** every session in the store, most recently active first, as listed when iteration starts */
  all?: boolean;
  /** told about each call that became no sample (iterateSessions reports them in `skipped` instead) */
  onSkippedCall?: (skipped: SkippedCall, sessionId: string) => void;
}

/** Sessions listed per query when `all` is set. */
const SESSION_PAGE = 500;

/**
 * Reconstructs sessions one at a time: only one session's calls are in memory at once, whatever the store holds.
 *
 * @example
 * for (const report of iterateSessions(store, { all: true, strategy: 'merge' })) console.log(report.driftCounts);
 */
export function* iterateSessions(store: IterateSource, options: IterateSamplesOptions): Generator<SessionReconstruction> {
  for (const sessionId of sessionIdsOf(store, options)) yield reconstructSessionReport(store, sessionId, options);
}

/**
 * Every sample of the chosen sessions, session by session (bounded memory: one session at a time), for exporters.
 * Calls that became no sample go to `onSkippedCall`.
 *
 * @example
 * for (const sample of iterateSamples(store, { all: true, strategy: 'merge' })) writer.write(sample);
 */
export function* iterateSamples(store: IterateSource, options: IterateSamplesOptions): Generator<Sample> {
  for (const report of iterateSessions(store, options)) {
    if (options.onSkippedCall !== undefined) for (const skipped of report.skipped) options.onSkippedCall(skipped, report.sessionId);
    yield* report.samples;
  }
}

function sessionIdsOf(store: IterateSource, options: IterateSamplesOptions): Iterable<string> {
  if ((options.sessionIds === undefined) === (options.all !== true)) {
    throw new TokentapError('TT_INVALID_ARGUMENT', { message: 'iterate samples of either `sessionIds` or `all: true`' });
  }
  if (options.sessionIds !== undefined) return options.sessionIds;
  // listed up front (ids only), so sessions that become active meanwhile do not shift the pages under us
  const ids: string[] = [];
  for (let offset = 0; ; offset += SESSION_PAGE) {
    const page = store.listSessions({ limit: SESSION_PAGE, offset });
    for (const session of page) ids.push(session.id);
    if (page.length < SESSION_PAGE) return ids;
  }
}
