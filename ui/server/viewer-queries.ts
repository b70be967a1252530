import { z } from 'zod';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { SESSION_ORDER_KEYS } from '../../store/index.js';
import type { DriftKindName, SessionSortKey } from '../viewer-api.js';

/** The drift kinds a `drift` filter may name (reconstruct/sample.ts DriftKind). */
const DRIFT_KIND_NAMES = [
  'template-rerender',
  'retokenized',
  'history-edited',
  'parallel-branch',
  'truncated-completion',
] as const satisfies readonly DriftKindName[];

const trimmed = z.string().trim().min(1).max(1000);
const number = z.coerce.number().refine(Number.isFinite, 'expected a finite number');
/** ms since the epoch, or an ISO 8601 date (`2026-12-01`, `2026-12-01T12:00:00Z`) */
const time = z
  .string()
  .trim()
  .transform((text, context) => {
    const parsed = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : Date.parse(text);
    if (Number.isNaN(parsed)) {
      context.addIssue({ code: 'custom', message: 'expected ms since the epoch or an ISO 8601 date' });
      return z.NEVER;
    }
    return parsed;
  });
const driftKinds = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((kind) => kind.trim())
      .filter((kind) => kind !== ''),
  )
  .pipe(z.array(z.enum(DRIFT_KIND_NAMES)).min(1));

/** GET /ui/api/sessions (ui/viewer-api.ts): unknown keys are refused, so a misspelt filter is not silently ignored. */
export const sessionListQuery = z.strictObject({
  search: trimmed.optional().describe('a substring of the session id or the group id (case-sensitive)'),
  group: trimmed.optional(),
  status: z.enum(['open', 'completed', 'truncated', 'failed', 'aborted']).optional(),
  minReward: number.optional(),
  maxReward: number.optional(),
  drift: driftKinds.optional().describe('comma-separated drift kinds: sessions whose merge reconstruction breaks with any of them'),
  frontDoor: trimmed.optional(),
  model: trimmed.optional(),
  since: time.optional().describe('ms since the epoch or an ISO date: newest call (or creation) at or after'),
  until: time.optional().describe('ms since the epoch or an ISO date: newest call (or creation) before'),
  sort: z.enum(SESSION_ORDER_KEYS as [SessionSortKey, ...SessionSortKey[]]).default('lastCallAt'),
  order: z.enum(['asc', 'desc']).default('desc'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
export type SessionListQuery = z.infer<typeof sessionListQuery>;

export const sessionParams = z.object({ id: z.string().min(1) });
export const callParams = z.object({ id: z.string().min(1) });
export const groupParams = z.object({ groupId: z.string().min(1) });
export const sampleParams = z.object({
  id: z.string().min(1),
  strategy: z.enum(['merge', 'per-call']),
  index: z.coerce.number().int().min(0),
});
export const noQuery = z.strictObject({});

/**
 * Parses a request part with its schema, or throws 400 TT_INVALID_REQUEST naming each bad field.
 *
 * @example const query = parseInput(sessionListQuery, request.query, 'query');
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown, where: string): z.infer<Schema> {
  const parsed = schema.safeParse(withoutEmptyValues(input));
  if (parsed.success) return parsed.data;
  throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid ${where}: ${z.prettifyError(parsed.error)}`, cause: parsed.error });
}

/** A form's empty fields (`?search=&group=`) mean "no filter", not a filter on the empty string. */
function withoutEmptyValues(input: unknown): unknown {
  if (input === null || input === undefined) return {};
  if (typeof input !== 'object' || Array.isArray(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== ''));
}
