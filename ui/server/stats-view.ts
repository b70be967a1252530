import { isTokentapError, TokentapError } from '../../core/errors/tokentap-error.js';
import { computeDatasetStats } from '../../export/dataset-stats.js';
import { isExportQueryKey, parseExportQuery, type ExportQueryValues } from '../../export/parse-export-query.js';
import type { Store } from '../../store/index.js';
import type { StatsResponse } from '../viewer-api.js';

/**
 * GET /ui/api/stats: `tokentap stats --json` with the selection from the query, in the export's own vocabulary
 * (export/parse-export-query.ts: since, until, tags, split, sessionIds, groupIds, rewardMin, rewardMax, status, ...,
 * estimator, strategy; `group` is short for groupIds). Unknown keys and bad values are 400 TT_INVALID_REQUEST.
 *
 * @example readStats(store, { strategy: 'per-call', group: 'task-7' }).summary
 */
export function readStats(store: Store, query: Record<string, unknown>): StatsResponse {
  const values: Record<string, string | readonly string[] | boolean | undefined> = {};
  for (const [key, value] of Object.entries(query)) {
    const name = key === 'group' ? 'groupIds' : key;
    if (!isExportQueryKey(name)) throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid query: stats take no ${JSON.stringify(key)}` });
    values[name] = value as ExportQueryValues[string];
  }
  let parsed;
  try {
    parsed = parseExportQuery(values);
  } catch (error) {
    if (isTokentapError(error, 'EXPORT_INVALID_OPTION')) throw new TokentapError('TT_INVALID_REQUEST', { message: error.message, cause: error });
    throw error;
  }
  const stats = computeDatasetStats(store, {
    filters: parsed.filters,
    advantage: parsed.advantage,
    ...(parsed.strategy === undefined ? {} : { strategy: parsed.strategy }),
  });
  return stats as unknown as StatsResponse;
}
