import { isRecord } from '../core/json/is-record.js';

/**
 * RFC 7396 JSON merge patch, what a call's end does to the metadata written at its begin (retries, a failover's
 * served request): each key of the patch replaces the target's, objects merge key by key, a null removes the key.
 * Done here, not by the database (SQLite's json_patch), so both engines store the same text: the target's keys keep
 * their order and new ones follow, where PostgreSQL's jsonb would sort them.
 *
 * @example mergePatch({ a: 1, b: { c: 2 } }, { b: { d: 3 }, a: null }) // { b: { c: 2, d: 3 } }
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const merged: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = mergePatch(merged[key], value);
  }
  return merged;
}
