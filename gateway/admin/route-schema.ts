import { z } from 'zod';

/** The admin API's response shapes, for the OpenAPI document only (answers are built from typed objects). */
const rewardRow = z.object({
  id: z.number().int(),
  sessionId: z.string(),
  callId: z.string().nullable(),
  value: z.number(),
  components: z.record(z.string(), z.number()).nullable(),
  source: z.string(),
  createdAt: z.number(),
});

const sessionInfo = z.object({
  id: z.string(),
  origin: z.enum(['implicit', 'api']),
  status: z.enum(['open', 'completed', 'truncated', 'failed', 'aborted']),
  groupId: z.string().nullable(),
  task: z.unknown(),
  tags: z.array(z.string()),
  split: z.enum(['train', 'val', 'test']).nullable(),
  sampling: z.record(z.string(), z.unknown()),
  hasKey: z.boolean(),
  createdAt: z.number(),
  activityAt: z.number(),
  endedAt: z.number().nullable(),
  endReason: z.enum(['explicit', 'idle-timeout']).nullable(),
  reward: rewardRow.nullable(),
  callRewards: z.array(rewardRow),
});

const groupInfo = z.object({
  id: z.string(),
  expectedSize: z.number().int().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.number(),
  completedAt: z.number().nullable(),
  complete: z.boolean(),
  sessions: z.array(z.object({ id: z.string(), status: z.string(), reward: z.number().nullable() })),
});

const gatewayState = z.object({
  paused: z.boolean(),
  pauseMode: z.enum(['hold', 'reject']),
  retryAfterSeconds: z.number(),
  pausedAt: z.number().nullable(),
  policyVersion: z.string().nullable(),
  inFlight: z.object({ count: z.number().int(), callIds: z.array(z.string()) }),
  held: z.number().int(),
  drained: z.boolean().optional(),
});

const exportSummary = z.object({
  sessions: z.number().int(),
  groups: z.number().int(),
  samples: z.number().int(),
  tokens: z.number().int(),
  trainedTokens: z.number().int(),
  dropped: z.record(z.string(), z.number()),
  skippedCalls: z.record(z.string(), z.number()),
  drift: z.record(z.string(), z.number()),
  templateRerenderRollouts: z.number().int().describe('selected rollouts whose chain broke at template-rerender'),
  zeroVarianceGroups: z.number().int().describe('groups whose rewards are all equal (advantage 0)'),
  bytes: z.number().int(),
});

const pulledBatch = z.object({
  batchId: z.string(),
  consumer: z.string(),
  leaseExpiresAt: z.number().describe('ms since the epoch; acknowledge before it'),
  format: z.string(),
  shape: z.string().nullable(),
  groups: z.array(z.string()).describe('the leased group ids, oldest completion first'),
  rows: z.array(z.unknown()).describe('the format rows (JSONL form), group-contiguous'),
  summary: exportSummary,
  provenance: z
    .object({
      schema_version: z.string(),
      tokentap_version: z.string(),
      tokenizer_hash: z.string().describe('sha256 of the modelDir tokenizer.json, or unknown'),
      chat_template_hash: z.string().describe('sha256 of its chat template, or unknown'),
    })
    .describe('what the rows were made with, as a file export writes into its metadata'),
});

export const RESPONSES = {
  session: sessionInfo,
  createdSession: z.object({
    session: sessionInfo,
    apiKey: z.string().describe('tt-...: shown once; send it as the harness API key'),
    baseUrls: z.object({ openai: z.string(), anthropic: z.string() }),
  }),
  reward: rewardRow,
  rewards: z.object({ rewards: z.array(rewardRow) }),
  group: groupInfo,
  state: gatewayState,
  policyVersion: z.object({ version: z.string().nullable(), setAt: z.number().nullable() }),
  error: z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
  batch: pulledBatch,
  batchAck: z.object({ batchId: z.string(), consumer: z.string(), groups: z.array(z.string()), ackedAt: z.number() }),
  batchRelease: z.object({ batchId: z.string(), consumer: z.string(), groups: z.array(z.string()), released: z.literal(true) }),
} as const;

export interface RouteDoc {
  summary: string;
  /** who may call it: the admin only, or also the session's own key */
  access: 'admin' | 'admin or session key' | 'public';
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** status -> schema of the answer */
  response: Record<number, z.ZodType>;
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/**
 * A fastify route schema for the OpenAPI document (@fastify/swagger), from the same zod schemas the handlers
 * validate with. Fastify does not validate or serialize with it: the admin scope turns both off, so input is
 * checked once, by zod, and errors keep the rollout API's one shape.
 *
 * @example scope.post('/pause', { schema: routeSchema({ summary: 'Pause', access: 'admin', body: pauseSchema, response: { 200: RESPONSES.state } }) }, handler)
 */
export function routeSchema(doc: RouteDoc): Record<string, unknown> {
  const errors = Object.fromEntries([400, 401, 403, 404, 409].map((status) => [status, jsonSchema(RESPONSES.error)]));
  return {
    summary: doc.summary,
    description: `Access: ${doc.access}.`,
    tags: ['rollouts'],
    ...(doc.access === 'public' ? {} : { security: [{ bearerAuth: [] }] }),
    ...(doc.params === undefined ? {} : { params: jsonSchema(doc.params) }),
    ...(doc.querystring === undefined ? {} : { querystring: jsonSchema(doc.querystring) }),
    ...(doc.body === undefined ? {} : { body: jsonSchema(doc.body) }),
    response: { ...errors, ...Object.fromEntries(Object.entries(doc.response).map(([status, schema]) => [status, jsonSchema(schema)])) },
  };
}
