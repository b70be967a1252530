import { jsonArrayElements, typed, type SqlDatabase } from './sql/sql-database.js';
import { wellFormedText } from './well-formed-text.js';
import type { ServableGroupsFilter } from './types.js';

/** The bound values of groupMatchesFilters' parameters. */
export interface GroupFilterParameters {
  filtered: number;
  since: number | null;
  until: number | null;
  split: string | null;
  tags: string;
  tagCount: number;
}

/**
 * The pull API's rollout-level filters on the row `groups` (one matching session is enough; the export applies them
 * again per rollout inside the served groups). Tags: the session carries every tag asked for. Shared by the pool's
 * listing (batch-queries.ts) and the lease's pick (lease-queries.ts); its parameters come from groupFilterParameters.
 */
export function groupMatchesFilters(database: SqlDatabase): string {
  return `(@filtered = 0 OR EXISTS (
          SELECT 1 FROM sessions
           WHERE sessions.group_id = groups.id
             AND (${typed(database, '@since', 'double precision')} IS NULL OR sessions.created_at >= @since)
             AND (${typed(database, '@until', 'double precision')} IS NULL OR sessions.created_at < @until)
             AND (${typed(database, '@split', 'text')} IS NULL OR sessions.split = @split)
             AND @tagCount = (SELECT count(*) FROM ${jsonArrayElements(database, "coalesce(sessions.tags, '[]')", 'tag')}
                               WHERE tag.value IN (SELECT wanted.value FROM ${jsonArrayElements(database, '@tags', 'wanted')}))))`;
}

/**
 * The filters as groupMatchesFilters binds them; tags as stored (rollout-queries.ts: U+0000 becomes U+FFFD), which
 * PostgreSQL's jsonb could not read otherwise.
 *
 * @example groupFilterParameters({ split: 'train', tags: ['math'] }) // { filtered: 1, split: 'train', tags: '["math"]', tagCount: 1, ... }
 */
export function groupFilterParameters(filters: ServableGroupsFilter): GroupFilterParameters {
  const tags = [...new Set((filters.tags ?? []).map(wellFormedText))];
  const filtered = filters.since !== undefined || filters.until !== undefined || filters.split !== undefined || tags.length > 0;
  return {
    filtered: filtered ? 1 : 0,
    since: filters.since ?? null,
    until: filters.until ?? null,
    split: filters.split ?? null,
    tags: JSON.stringify(tags),
    tagCount: tags.length,
  };
}
