import { dialectOf, jsonArrayElements, typed, type SqlDatabase } from './sql/sql-database.js';
import { isStorableId } from './storable-id.js';
import { groupFilterParameters, type GroupFilterParameters } from './servable-group-filter.js';
import type { ExportUnitRow, ExportUnitsFilter, ExportUnitsQuery, PolicyVersionRow } from './types.js';

export interface ExportQueries {
  listUnits(query: ExportUnitsQuery): ExportUnitRow[];
  countSessions(filter: ExportUnitsFilter): number;
  listPolicyVersions(): PolicyVersionRow[];
}

interface FilterParameters extends GroupFilterParameters {
  sessionIds: string | null;
  groupIds: string | null;
}

/**
 * The rollout-level filters a session must pass, on the session named `alias`. Tags: the session carries every tag
 * asked for (as in batch-queries.ts). The export checks every filter again per rollout: this only skips units early.
 */
function sessionMatches(database: SqlDatabase, alias: string): string {
  const elements = (expression: string, name: string): string => jsonArrayElements(database, expression, name);
  const number = (parameter: string): string => typed(database, parameter, 'double precision');
  return `(${number('@since')} IS NULL OR ${alias}.created_at >= @since)
      AND (${number('@until')} IS NULL OR ${alias}.created_at < @until)
      AND (${typed(database, '@split', 'text')} IS NULL OR ${alias}.split = @split)
      AND (${typed(database, '@sessionIds', 'text')} IS NULL OR ${alias}.id IN (SELECT listed.value FROM ${elements('@sessionIds', 'listed')}))
      AND (${typed(database, '@groupIds', 'text')} IS NULL OR ${alias}.group_id IN (SELECT listed.value FROM ${elements('@groupIds', 'listed')}))
      AND @tagCount = (SELECT count(*) FROM ${elements(`coalesce(${alias}.tags, '[]')`, 'tag')}
                        WHERE tag.value IN (SELECT wanted.value FROM ${elements('@tags', 'wanted')}))`;
}

/** A unit (a group, or a session without one) is kept when one of its sessions passes the filters. */
function unitMatches(database: SqlDatabase): string {
  return `(@filtered = 0 OR CASE WHEN unit.group_id IS NULL THEN (${sessionMatches(database, 'unit')})
  ELSE EXISTS (SELECT 1 FROM sessions AS member WHERE member.group_id = unit.group_id AND ${sessionMatches(database, 'member')}) END)`;
}

/**
 * What the export reads besides calls (docs/export.md, "Selection and filters"): the units to export, paged by
 * keyset so no export ever holds every session id, and the policy-version history staleness is measured against.
 *
 * A unit is listed once, at its first session: units come in the order their first session was recorded (rowid,
 * the order sessions were created), which stays stable while new sessions arrive at the end.
 *
 * @example
 * const exports = createExportQueries(database);
 * const page = exports.listUnits({ limit: 256, afterPosition: 0, split: 'train' });
 */
export function createExportQueries(database: SqlDatabase): ExportQueries {
  // the partial index sessions_by_group (group_id, rowid) answers "an earlier session of the same group";
  // PostgreSQL has no rowid: its sessions carry `position` (an identity column) for it
  const rowid = dialectOf(database) === 'sqlite' ? 'rowid' : 'position';
  const matches = unitMatches(database);
  const selectUnits = database.prepare<
    FilterParameters & { after: number; limit: number },
    { position: number; session_id: string; group_id: string | null }
  >(
    `SELECT unit.${rowid} AS position, unit.id AS session_id, unit.group_id FROM sessions AS unit
      WHERE unit.${rowid} > @after
        AND (unit.group_id IS NULL OR NOT EXISTS (
              SELECT 1 FROM sessions AS earlier WHERE earlier.group_id = unit.group_id AND earlier.${rowid} < unit.${rowid}))
        AND ${matches}
      ORDER BY unit.${rowid}
      LIMIT @limit`,
  );
  const countUnitSessions = database.prepare<FilterParameters, { sessions: number }>(
    `SELECT count(*) AS sessions FROM sessions AS unit WHERE ${matches}`,
  );
  const selectVersions = database.prepare<[], { version: string; set_at: number }>(`SELECT version, set_at FROM policy_versions ORDER BY id`);

  return {
    listUnits(query) {
      const rows = selectUnits.all({ ...filterParameters(query), after: query.afterPosition ?? 0, limit: query.limit });
      return rows.map((row) => ({ position: row.position, sessionId: row.session_id, groupId: row.group_id }));
    },
    countSessions: (filter) => (countUnitSessions.get(filterParameters(filter)) as { sessions: number }).sessions,
    listPolicyVersions: () => selectVersions.all().map((row) => ({ version: row.version, setAt: row.set_at })),
  };
}

function filterParameters(filter: ExportUnitsFilter): FilterParameters {
  // the time, split and tag parameters as the pull API binds them (tags as stored); an id holding U+0000 was never
  // stored, and PostgreSQL's jsonb cannot read one
  const shared = groupFilterParameters(filter);
  const byId = filter.sessionIds !== undefined || filter.groupIds !== undefined;
  return {
    ...shared,
    filtered: shared.filtered === 1 || byId ? 1 : 0,
    sessionIds: filter.sessionIds === undefined ? null : JSON.stringify(filter.sessionIds.filter(isStorableId)),
    groupIds: filter.groupIds === undefined ? null : JSON.stringify(filter.groupIds.filter(isStorableId)),
  };
}
