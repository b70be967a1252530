import { z } from 'zod';
import type { ReconstructStrategy } from '../reconstruct/index.js';
import type { AdvantageOptions, ExportFilters } from './export-options.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * Option values as a querystring or `node:util` parseArgs gives them: strings (comma lists for arrays), repeated
 * keys as arrays, boolean flags as booleans. Keys are camelCase (`rewardMin`) or kebab-case (`reward-min`).
 *
 * @example const values: ExportQueryValues = { split: 'train', tags: 'a,b', 'faithful-only': true };
 */
export type ExportQueryValues = Readonly<Record<string, string | readonly string[] | boolean | undefined>>;

/** What an export or pull takes besides its format and destination. @example const { filters, advantage, strategy }: ParsedExportQuery = parseExportQuery(values); */
export interface ParsedExportQuery {
  filters: ExportFilters;
  advantage: AdvantageOptions;
  /** undefined: the export's default (`merge`) */
  strategy: ReconstructStrategy | undefined;
}

/** Splits comma lists (and repeated keys) into trimmed, non-empty items. */
function toList(value: unknown): unknown {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  return items
    .flatMap((item) => (typeof item === 'string' ? item.split(',') : [item]))
    .map((item) => (typeof item === 'string' ? item.trim() : item))
    .filter((item) => item !== '');
}

/** A repeated scalar key stays an array, so the schema refuses it instead of silently taking one of them. */
function single(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 ? value[0] : value;
}

function toNumber(value: unknown): unknown {
  const text = single(value);
  return typeof text === 'string' && text.trim() !== '' ? Number(text) : text;
}

/** ms since the epoch, or an ISO 8601 date (`2025-06-01`, `2025-06-01T12:00:00Z`) */
function toTime(value: unknown): unknown {
  const text = single(value);
  if (typeof text !== 'string' || text.trim() === '') return text;
  if (/^-?\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? text : parsed;
}

/** A flag alone (`?faithfulOnly`, `--faithful-only`) means true. */
function toBoolean(value: unknown): unknown {
  const text = single(value);
  if (typeof text !== 'string') return text;
  const word = text.trim().toLowerCase();
  if (word === '' || word === 'true' || word === '1') return true;
  if (word === 'false' || word === '0') return false;
  return text;
}

const count = z.preprocess(toNumber, z.number({ error: 'expected a whole number' }).int().min(0));
const real = z.preprocess(toNumber, z.number({ error: 'expected a number' }).finite());
const time = z.preprocess(toTime, z.number({ error: 'expected ms since the epoch or an ISO 8601 date' }).finite());
const flag = z.preprocess(toBoolean, z.boolean({ error: 'expected true or false' }));
const list = z.preprocess(toList, z.array(z.string().max(200)).min(1, 'expected a comma list of at least one item'));
const choice = <T extends readonly [string, ...string[]]>(values: T) => z.preprocess(single, z.enum(values));

const exportQuerySchema = z
  .strictObject({
    since: time.optional(),
    until: time.optional(),
    tags: list.optional(),
    split: choice(['train', 'val', 'test'] as const).optional(),
    sessionIds: list.optional(),
    groupIds: list.optional(),
    rewardMin: real.optional(),
    rewardMax: real.optional(),
    status: z.preprocess(toList, z.array(z.enum(['completed', 'truncated', 'failed', 'aborted', 'in_progress', 'unknown'])).min(1)).optional(),
    faithfulOnly: flag.optional(),
    minLength: count.optional(),
    maxLength: count.optional(),
    maxStaleness: count.optional(),
    policyVersions: list.optional(),
    estimator: choice(['grpo', 'rloo', 'dr-grpo', 'none'] as const).optional(),
    normalizeStd: flag.optional(),
    epsilon: z.preprocess(toNumber, z.number({ error: 'expected a number' }).finite().min(0)).optional(),
    dropZeroVarianceGroups: flag.optional(),
    strategy: choice(['merge', 'per-call'] as const).optional(),
  })
  .refine((query) => !(query.since !== undefined && query.until !== undefined && query.since >= query.until), {
    message: 'since must be before until',
    path: ['since'],
  })
  .refine((query) => !(query.rewardMin !== undefined && query.rewardMax !== undefined && query.rewardMin > query.rewardMax), {
    message: 'rewardMin must not exceed rewardMax',
    path: ['rewardMin'],
  })
  .refine((query) => !(query.minLength !== undefined && query.maxLength !== undefined && query.minLength > query.maxLength), {
    message: 'minLength must not exceed maxLength',
    path: ['minLength'],
  });

/** The option names parseExportQuery reads (camelCase; each also accepted in kebab-case). @example EXPORT_QUERY_KEYS.includes('rewardMin') // true */
export const EXPORT_QUERY_KEYS: readonly string[] = Object.keys(exportQuerySchema.shape);

const FILTER_KEYS = [
  'since',
  'until',
  'tags',
  'split',
  'sessionIds',
  'groupIds',
  'rewardMin',
  'rewardMax',
  'status',
  'faithfulOnly',
  'minLength',
  'maxLength',
  'maxStaleness',
  'policyVersions',
] as const;
const ADVANTAGE_KEYS = ['estimator', 'normalizeStd', 'epsilon', 'dropZeroVarianceGroups'] as const;

/** `reward-min` -> `rewardMin` */
function camelCase(key: string): string {
  return key.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * Whether parseExportQuery reads this key (in either spelling): callers that refuse unknown keys ask it.
 *
 * @example isExportQueryKey('reward-min') // true
 */
export function isExportQueryKey(key: string): boolean {
  return EXPORT_QUERY_KEYS.includes(camelCase(key));
}

/**
 * Parses the export filters, advantage options and strategy shared by `tokentap export` and the pull API
 * (`GET /tokentap/v1/batches`), from flat option values; other keys are left to the caller. Throws a TokentapError
 * EXPORT_INVALID_OPTION naming each bad option (a user's mistake: the CLI exits 2 with it, the pull API answers 400).
 *
 * @example
 * const { filters, advantage, strategy } = parseExportQuery({ split: 'train', tags: 'math,easy', 'reward-min': '0', estimator: 'rloo' });
 * // filters: { split: 'train', tags: ['math', 'easy'], rewardMin: 0 }, advantage: { estimator: 'rloo' }, strategy: undefined
 */
export function parseExportQuery(values: ExportQueryValues): ParsedExportQuery {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const name = camelCase(key);
    if (value === undefined || !EXPORT_QUERY_KEYS.includes(name)) continue;
    if (name in input) throw new TokentapError('EXPORT_INVALID_OPTION', { message: `Invalid export options: ${name} given twice (as ${key} too)` });
    input[name] = value;
  }
  const parsed = exportQuerySchema.safeParse(input);
  if (!parsed.success)
    throw new TokentapError('EXPORT_INVALID_OPTION', { message: `Invalid export options: ${z.prettifyError(parsed.error)}`, cause: parsed.error });
  const query = parsed.data;
  const filters: ExportFilters = {};
  for (const key of FILTER_KEYS) if (query[key] !== undefined) Object.assign(filters, { [key]: query[key] });
  const advantage: AdvantageOptions = {};
  for (const key of ADVANTAGE_KEYS) if (query[key] !== undefined) Object.assign(advantage, { [key]: query[key] });
  return { filters, advantage, strategy: query.strategy };
}
