import { z } from 'zod';

/** The shapes of the viewer's answers for the OpenAPI document only (answers are built from ui/viewer-api.ts types). */
const looseObject = z.record(z.string(), z.unknown());
export const VIEWER_RESPONSES = {
  error: z.object({ error: z.object({ code: z.string(), message: z.string() }) }),
  summary: z.object({
    sessions: z.number().int(),
    openSessions: z.number().int(),
    calls: z.number().int(),
    groups: z.number().int(),
    callStatuses: z.record(z.string(), z.number()),
    lastCallAt: z.number().nullable(),
    tokenText: z.boolean(),
    store: z.object({ engine: z.enum(['sqlite', 'postgres']), where: z.string() }),
    live: z.boolean(),
  }),
  sessions: z.object({ total: z.number().int(), offset: z.number().int(), limit: z.number().int(), sessions: z.array(looseObject) }),
  session: z.object({
    session: looseObject,
    calls: z.array(looseObject),
    conversation: z.array(looseObject),
    samples: z.object({ merge: z.array(looseObject), 'per-call': z.array(looseObject) }),
    skipped: z.array(looseObject),
  }),
  call: z.object({ call: looseObject, sessionId: z.string(), messages: z.array(looseObject) }),
  sample: z.object({
    sessionId: z.string(),
    summary: looseObject,
    tokenIds: z.array(z.number().int()),
    texts: z.array(z.string()).nullable(),
    mask: z.array(z.number().int()),
    logprobs: z.array(z.number().nullable()),
    policyBands: z.array(z.object({ start: z.number().int(), end: z.number().int(), version: z.string().nullable() })),
    calls: z.array(
      z.object({ callId: z.string(), seq: z.number().int(), start: z.number().int(), completionStart: z.number().int(), end: z.number().int() }),
    ),
  }),
  groups: z.object({ groups: z.array(looseObject) }),
  group: z.object({ groupId: z.string(), estimator: z.string(), sharedPrefix: z.number().int(), rollouts: z.array(looseObject) }),
  stats: looseObject,
} as const;

export interface ViewerRouteDoc {
  summary: string;
  params?: z.ZodType;
  querystring?: z.ZodType;
  /** status -> schema of the answer */
  response: Record<number, z.ZodType>;
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/**
 * A fastify route schema for the OpenAPI document (@fastify/swagger), from the zod schemas the handlers validate
 * with (as the rollout API's gateway/admin/route-schema.ts). Fastify neither validates nor serializes with it: the
 * viewer's scope turns both off, so input is checked once, by zod, and errors keep the viewer's one shape.
 *
 * @example scope.get('/summary', { schema: viewerRouteSchema({ summary: 'Counts', response: { 200: VIEWER_RESPONSES.summary } }) }, handler)
 */
export function viewerRouteSchema(doc: ViewerRouteDoc): Record<string, unknown> {
  const errors = Object.fromEntries([400, 401, 403, 404].map((status) => [status, jsonSchema(VIEWER_RESPONSES.error)]));
  return {
    summary: doc.summary,
    tags: ['viewer'],
    security: [{ bearerAuth: [] }],
    ...(doc.params === undefined ? {} : { params: jsonSchema(doc.params) }),
    ...(doc.querystring === undefined ? {} : { querystring: jsonSchema(doc.querystring) }),
    response: { ...errors, ...Object.fromEntries(Object.entries(doc.response).map(([status, schema]) => [status, jsonSchema(schema)])) },
  };
}
