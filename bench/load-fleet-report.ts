import type { FleetFigures, ReplicaFigures } from './load-fleet-figures.js';
import type { LoadRun } from './load-report.js';

/** One phase of `bench/load.ts --replicas N`: the fleet's placement and what it did. */
export interface FleetPhase {
  affinity: 'session' | 'none';
  run: LoadRun;
  figures: FleetFigures;
}

const percent = (part: number, whole: number): string => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`);
const ratio = (a: number, b: number): string => (b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`);
const callShare = (replica: Pick<ReplicaFigures, 'prefixHits' | 'calls'>): string => percent(replica.prefixHits, replica.calls);
const tokenShare = (replica: Pick<ReplicaFigures, 'cachedTokens' | 'promptTokens'>): string => percent(replica.cachedTokens, replica.promptTokens);

function totals(figures: FleetFigures): Pick<ReplicaFigures, 'prefixHits' | 'continuationHits' | 'calls' | 'cachedTokens' | 'promptTokens'> {
  const sum = (field: 'prefixHits' | 'continuationHits' | 'cachedTokens' | 'promptTokens'): number =>
    figures.replicas.reduce((total, replica) => total + replica[field], 0);
  return {
    calls: figures.calls,
    prefixHits: sum('prefixHits'),
    continuationHits: sum('continuationHits'),
    cachedTokens: sum('cachedTokens'),
    promptTokens: sum('promptTokens'),
  };
}

const sessionsPerReplica = (figures: FleetFigures): string =>
  (figures.replicas.reduce((sum, replica) => sum + replica.sessions, 0) / Math.max(1, figures.replicas.length)).toFixed(1);

/** `calls/s` of a phase from the store: its `ok` calls over its wall time. */
const callsPerSecond = (phase: FleetPhase): number => phase.figures.calls / phase.run.seconds;

/**
 * The two phases side by side: calls/s and its ratio, the spread of calls over the replicas, the sessions that
 * stayed on one replica, and the prefix-cache share (calls whose prompt starts with the prompt of the replica's
 * previous call of the session; prompt tokens covered by that call's prompt + completion), in all and per replica.
 *
 * @example write(formatFleetComparison(sticky, roundRobin));
 */
export function formatFleetComparison(sticky: FleetPhase, roundRobin: FleetPhase): string {
  const row = (label: string, a: string, b: string, both = ''): string => `${label.padEnd(36)}${a.padEnd(26)}${b.padEnd(26)}${both}`;
  const [a, b] = [totals(sticky.figures), totals(roundRobin.figures)];
  const spread = (figures: FleetFigures): string => `${figures.spread.min} / ${figures.spread.max}, CV ${figures.spread.cv.toFixed(3)}`;
  const stayed = (figures: FleetFigures): string =>
    `${figures.sessionsOnOneReplica} of ${figures.multiCallSessions} (${percent(figures.sessionsOnOneReplica, figures.multiCallSessions)})`;
  const lines = [
    `fleet: ${sticky.figures.replicas.length} replicas (${sticky.figures.replicas.map((replica) => replica.id).join(', ')}); the same load twice at once, each phase with its own gateway, sessions and database`,
    row('', 'sticky (session)', 'round robin (none)', 'sticky / none'),
    row('calls ok (store)', String(sticky.figures.calls), String(roundRobin.figures.calls)),
    row(
      'calls/s',
      callsPerSecond(sticky).toFixed(1),
      callsPerSecond(roundRobin).toFixed(1),
      ratio(callsPerSecond(sticky), callsPerSecond(roundRobin)),
    ),
    row('calls per replica: min / max', spread(sticky.figures), spread(roundRobin.figures)),
    row('sessions on one replica', stayed(sticky.figures), stayed(roundRobin.figures)),
    row('prefix-cache share: calls', callShare(a), callShare(b), ratio(a.prefixHits, b.prefixHits)),
    row('prefix-cache share: prompt tokens', tokenShare(a), tokenShare(b), ratio(a.cachedTokens, b.cachedTokens)),
    row(
      'prompt tokens to prefill (uncached)',
      String(a.promptTokens - a.cachedTokens),
      String(b.promptTokens - b.cachedTokens),
      ratio(a.promptTokens - a.cachedTokens, b.promptTokens - b.cachedTokens),
    ),
    row('sessions cached per replica (mean)', sessionsPerReplica(sticky.figures), sessionsPerReplica(roundRobin.figures)),
    row('continuations (+ completion ids)', String(a.continuationHits), String(b.continuationHits)),
    'per replica: calls, prefix-cache share of calls / of prompt tokens',
  ];
  for (const replica of sticky.figures.replicas) {
    const other = roundRobin.figures.replicas.find((candidate) => candidate.id === replica.id);
    const describe = (figures: ReplicaFigures | undefined): string =>
      figures === undefined ? 'n/a' : `${figures.calls}, ${callShare(figures)} / ${tokenShare(figures)}`;
    lines.push(row(`  ${replica.id}`, describe(replica), describe(other)));
  }
  lines.push(
    "prefix-cache share: a call counts when its prompt ids start with those of its replica's previous call of the session (the newest earlier one it served); tokens: the prompt's common prefix with that call's prompt + completion ids, over all prompt tokens; the rest is what the replicas prefill. The fast-mode simulator's prompt ids stand in for the text (one per 4 bytes of body), so its completion ids never reappear in a prompt: continuations are 0 there, and a real backend's cache would also hold the completions. It has no prefix cache either: calls/s shows the routing's cost, not the cache's gain.",
  );
  return lines.join('\n');
}
