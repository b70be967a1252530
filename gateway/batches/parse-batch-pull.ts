import { z } from 'zod';
import type { ExportSelection } from '../../export/export-options.js';
import { isExportQueryKey, parseExportQuery, type ExportQueryValues } from '../../export/parse-export-query.js';
import { createTrainerAdapter, type TrainerAdapter } from '../../trainer-adapters/index.js';
import { isUserMistakeCode } from '../../core/errors/error-codes.js';
import { TokentapError, isTokentapError } from '../../core/errors/tokentap-error.js';
import { idSchema, parseInput } from '../rollouts/rollout-schemas.js';
import type { LeaseRequest } from './lease-pool.js';

/**
 * Bounds and defaults of a pull (docs/export.md, "Online pull API"). A long poll waits at most MAX_WAIT_MS (then
 * answers 204); a proxy in between must allow it.
 *
 * @example if (waitMs > MAX_WAIT_MS) refuse();
 */
export const MAX_WAIT_MS = 60_000;
export const DEFAULT_WAIT_MS = 30_000;
/** Leases last between these bounds; a lease longer than a training step only delays redelivery after a crash. */
export const MIN_LEASE_MS = 100;
export const MAX_LEASE_MS = 3_600_000;
export const DEFAULT_LEASE_MS = 300_000;
export const MAX_GROUPS_PER_BATCH = 1000;

const count = (max: number) => z.coerce.number().int().min(1).max(max);

/** The pull's own parameters; every other key must be an export option (parseExportQuery). @example batchPullSchema.parse({ format: 'verl', minGroups: '8' }) */
export const batchPullSchema = z.strictObject({
  /** a trainer format (TRAINER_FORMATS), e.g. `verl` */
  format: z.string().min(1).max(100),
  /** the format's shape, for formats with several */
  shape: z.string().min(1).max(100).optional(),
  /** answer once at least this many complete groups are servable (default 1) */
  minGroups: count(MAX_GROUPS_PER_BATCH).default(1),
  /** lease at most this many (default minGroups) */
  maxGroups: count(MAX_GROUPS_PER_BATCH).optional(),
  /** how long to wait for minGroups before answering 204; 0 answers at once */
  waitMs: z.coerce.number().int().min(0).max(MAX_WAIT_MS).default(DEFAULT_WAIT_MS),
  /** how long the consumer has to acknowledge before the groups go back to the pool */
  leaseMs: z.coerce.number().int().min(MIN_LEASE_MS).max(MAX_LEASE_MS).default(DEFAULT_LEASE_MS),
  /** a name for the consumer, kept with its leases and acks */
  consumer: idSchema.default('default'),
});

/** The route schema's querystring, for the OpenAPI document: the pull's own keys (export options come on top). @example routeSchema({ querystring: batchPullQueryDoc, ... }) */
export const batchPullQueryDoc = batchPullSchema.partial().extend({ format: batchPullSchema.shape.format });

/** A parsed pull: what to lease and how to turn the leased groups into rows. @example const { lease, waitMs, adapter, selection }: BatchPull = parseBatchPull(request.query); */
export interface BatchPull {
  lease: LeaseRequest;
  waitMs: number;
  adapter: TrainerAdapter;
  selection: ExportSelection;
}

/**
 * Reads `GET /tokentap/v1/batches` querystring: the pull's own keys, then the export filters, advantage options
 * and strategy (the same as `tokentap export`). Everything is checked before any wait or lease: a bad format,
 * shape, filter or an unknown key is TT_INVALID_REQUEST.
 *
 * @example const pull = parseBatchPull({ format: 'verl', minGroups: '8', split: 'train', estimator: 'rloo' });
 */
export function parseBatchPull(query: ExportQueryValues): BatchPull {
  const own: Record<string, unknown> = {};
  const exportValues: Record<string, ExportQueryValues[string]> = {};
  for (const [key, value] of Object.entries(query)) {
    if (Object.hasOwn(batchPullSchema.shape, key)) own[key] = Array.isArray(value) && value.length === 1 ? value[0] : value;
    else if (key === 'sessionIds' || key === 'groupIds')
      throw invalid(`${key} is not a pull option: the pull API chooses the groups (narrow them with since, until, tags, split)`);
    else if (isExportQueryKey(key)) exportValues[key] = value;
    else throw invalid(`unknown query parameter ${key}`);
  }
  const pull = parseInput(batchPullSchema, own, 'pull');
  const maxGroups = pull.maxGroups ?? pull.minGroups;
  if (maxGroups < pull.minGroups) throw invalid(`maxGroups (${maxGroups}) is less than minGroups (${pull.minGroups})`);
  const { filters, advantage, strategy } = asInvalidRequest(() => parseExportQuery(exportValues));
  const adapter = asInvalidRequest(() => createTrainerAdapter(pull.format, pull.shape === undefined ? {} : { shape: pull.shape }));
  const groupFilters = {
    ...(filters.since === undefined ? {} : { since: filters.since }),
    ...(filters.until === undefined ? {} : { until: filters.until }),
    ...(filters.split === undefined ? {} : { split: filters.split }),
    ...(filters.tags === undefined ? {} : { tags: filters.tags }),
  };
  return {
    lease: { minGroups: pull.minGroups, maxGroups, leaseMs: pull.leaseMs, consumer: pull.consumer, filters: groupFilters },
    waitMs: pull.waitMs,
    adapter,
    selection: { filters, advantage, ...(strategy === undefined ? {} : { strategy }) },
  };
}

function invalid(message: string): TokentapError {
  return new TokentapError('TT_INVALID_REQUEST', { message: `Invalid pull: ${message}` });
}

/** The export modules report bad options as user's mistakes (EXPORT_INVALID_OPTION, EXPORT_UNKNOWN_FORMAT); here they are the client's, a 400. */
function asInvalidRequest<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (isTokentapError(error) && isUserMistakeCode(error.code))
      throw new TokentapError('TT_INVALID_REQUEST', { message: error.message, cause: error });
    throw error;
  }
}
