import type { Store } from '../store/index.js';
import type { ExportUnitSource } from './export-unit.js';
import type { ExportUnit } from './export-unit-shape.js';

/**
 * Sessions whose calls and rewards the export reads together (one snapshot, a few statements: on PostgreSQL each
 * statement is a round trip, and one per session was most of an export's time). Memory holds this many sessions'
 * calls at most, or one unit's when a unit is larger.
 */
export const DEFAULT_READ_AHEAD_SESSIONS = 32;

/** What the read-ahead reads: `listCallsAndRewards`, where there, for several sessions at once. */
export type ReadAheadSource = ExportUnitSource & Partial<Pick<Store, 'listCallsAndRewards'>>;

/**
 * The units, each with what to read it from: units are taken from `units` until they hold `sessions` sessions (at
 * least one unit), their sessions' calls and current rewards read at once, and each unit handed out with a source
 * serving those (the rest from the store). What a unit read is let go once it has been handed out. A store without
 * `listCallsAndRewards` is read session by session, as asked.
 *
 * @example for (const { unit, source } of readAheadUnits(store, units)) exportUnit(source, unit, options);
 */
export function* readAheadUnits(
  store: ReadAheadSource,
  units: Iterable<ExportUnit>,
  sessions = DEFAULT_READ_AHEAD_SESSIONS,
): Generator<{ unit: ExportUnit; source: ExportUnitSource }> {
  if (store.listCallsAndRewards === undefined) {
    for (const unit of units) yield { unit, source: store };
    return;
  }
  const iterator = units[Symbol.iterator]();
  for (;;) {
    const chunk: ExportUnit[] = [];
    let held = 0;
    while (held < sessions) {
      const next = iterator.next();
      if (next.done === true) break;
      chunk.push(next.value);
      held += next.value.rollouts.length;
    }
    if (chunk.length === 0) return;
    const read = store.listCallsAndRewards(chunk.flatMap((unit) => unit.rollouts.map((rollout) => rollout.id)));
    const source: ExportUnitSource = {
      listCalls: (sessionId) => read.get(sessionId)?.calls ?? store.listCalls(sessionId),
      listRewards: (sessionId, options) =>
        options?.history === true ? store.listRewards(sessionId, options) : (read.get(sessionId)?.rewards ?? store.listRewards(sessionId)),
      getCallBodies: (callId, options) => store.getCallBodies(callId, options),
      getRollout: (sessionId) => store.getRollout(sessionId),
    };
    for (const unit of chunk) {
      yield { unit, source };
      for (const rollout of unit.rollouts) read.delete(rollout.id);
    }
  }
}
