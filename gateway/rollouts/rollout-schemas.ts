import { z } from 'zod';
import { findRewardProblem, MAX_REWARD_MAGNITUDE, SESSION_END_STATUSES } from '../../store/index.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { SESSION_ID_PATTERN } from '../sessions/resolve-session.js';

/** Session and group ids travel in URL paths: the same safe alphabet as every session id. */
export const idSchema = z.string().regex(SESSION_ID_PATTERN, 'use 1-128 of A-Z a-z 0-9 . _ : - (not . or .. alone)');

/**
 * Sampling parameters a session may force on its backend requests, by their backend (vLLM) names. Only these:
 * each is a plain number the backend reads the same way on /v1/chat/completions and /v1/completions.
 */
export const samplingOverridesSchema = z.strictObject({
  temperature: z.number().min(0).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().min(-1).optional(),
  min_p: z.number().min(0).max(1).optional(),
  seed: z.number().int().optional(),
  max_tokens: z.number().int().positive().optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  repetition_penalty: z.number().gt(0).optional(),
});

/** @example const sampling: SamplingOverrides = { temperature: 1, top_p: 1, max_tokens: 4096 }; */
export type SamplingOverrides = z.infer<typeof samplingOverridesSchema>;

export const createSessionSchema = z.strictObject({
  id: idSchema.optional(),
  groupId: idSchema.optional(),
  task: z.unknown().optional(),
  tags: z.array(z.string().min(1).max(200)).max(100).optional(),
  split: z.enum(['train', 'val', 'test']).optional(),
  sampling: samplingOverridesSchema.optional(),
});

export const endSessionSchema = z.strictObject({
  status: z.enum(SESSION_END_STATUSES as ['completed', 'truncated', 'failed', 'aborted']).default('completed'),
});

/** A reward number: finite and within ±MAX_REWARD_MAGNITUDE, so sums, group statistics and advantages stay finite. */
const REWARD_NUMBER = `a finite number within ±${MAX_REWARD_MAGNITUDE}`;
const rewardNumber = z
  .number({ error: `expected ${REWARD_NUMBER}` })
  .min(-MAX_REWARD_MAGNITUDE, `expected ${REWARD_NUMBER}`)
  .max(MAX_REWARD_MAGNITUDE, `expected ${REWARD_NUMBER}`);
const componentsSchema = z.record(z.string().min(1).max(200), rewardNumber);

export const rewardSchema = z
  .strictObject({
    /** the scalar; default the sum of `components` */
    value: rewardNumber.optional(),
    components: componentsSchema.optional(),
    /** reward one call of the session instead of the whole session */
    callId: z.string().min(1).max(200).optional(),
  })
  .refine((reward) => reward.value !== undefined || reward.components !== undefined, 'give `value`, `components` or both')
  // each number was checked above, their sum was not: `{ a: 1.7e308, b: 1.7e308 }` sums to Infinity (issue 12)
  .superRefine((reward, context) => {
    const problem = findRewardProblem({ value: reward.value ?? 0, components: reward.components });
    if (problem?.field === 'components') context.addIssue({ code: 'custom', path: ['components'], message: `the components ${problem.problem}` });
  });

export const declareGroupSchema = z.strictObject({
  id: idSchema,
  expectedSize: z.number().int().positive().max(1_000_000),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const policyVersionSchema = z.strictObject({
  version: z.string().min(1).max(200),
});

export const pauseSchema = z.strictObject({
  mode: z.enum(['hold', 'reject']).optional(),
  retryAfterSeconds: z.number().int().min(0).max(3600).optional(),
  drain: z.boolean().optional(),
  drainTimeoutMs: z.number().int().positive().max(3_600_000).optional(),
});

export const sessionParamsSchema = z.strictObject({ sessionId: idSchema });
export const groupParamsSchema = z.strictObject({ groupId: idSchema });
export const groupQuerySchema = z.strictObject({
  /** long poll: answer once the group is complete or after this many ms (at most 60000) */
  waitMs: z.coerce.number().int().min(0).max(60_000).optional(),
});

/**
 * Validates rollout API input, from HTTP or from the library alike; throws TT_INVALID_REQUEST naming the bad field.
 *
 * @example const body = parseInput(rewardSchema, request.body, 'reward');
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const param = parsed.error.issues[0]?.path.join('.') || null;
  throw new TokentapError('TT_INVALID_REQUEST', { message: `Invalid ${what}: ${z.prettifyError(parsed.error)}`, param });
}
