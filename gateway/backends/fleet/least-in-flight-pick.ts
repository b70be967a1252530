/** A replica as the least-in-flight choice sees it: its place in the config and its calls now running. */
export interface InFlightCandidate {
  /** its position in the fleet's config (0-based) */
  index: number;
  inFlight: number;
}

/**
 * The replica for a call without a session: the one with the fewest calls in flight, ties taken in turn (round robin
 * over config order, starting after the `after` index the previous call of this pool took), so an idle pool still
 * spreads its calls. `candidates` are in config order; undefined when there are none.
 *
 * @example
 * const chosen = leastInFlightPick([{ index: 0, inFlight: 2 }, { index: 1, inFlight: 0 }], -1); // index 1
 */
export function leastInFlightPick<Candidate extends InFlightCandidate>(candidates: readonly Candidate[], after: number): Candidate | undefined {
  let fewest = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) fewest = Math.min(fewest, candidate.inFlight);
  const tied = candidates.filter((candidate) => candidate.inFlight === fewest);
  return tied.find((candidate) => candidate.index > after) ?? tied[0];
}
