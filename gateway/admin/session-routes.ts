import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayContext } from '../gateway-context.js';
import { createSessionSchema, endSessionSchema, parseInput, rewardSchema, sessionParamsSchema } from '../rollouts/rollout-schemas.js';
import { authorizeCaller } from './authorize-admin.js';
import { RESPONSES, routeSchema } from './route-schema.js';

type SessionRequest = FastifyRequest<{ Params: { sessionId: string } }>;

/** The base URL clients reached us at (or `publicUrl`), for the session URLs handed out. */
function baseUrlOf(request: FastifyRequest, context: GatewayContext): string {
  return context.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

/** For the routes a session key may use on its own session (reward, end): checks the caller, then the id. */
function sessionOf(request: SessionRequest, context: GatewayContext): { sessionId: string; caller: ReturnType<typeof authorizeCaller> } {
  const caller = authorizeCaller(request, context, request.params.sessionId);
  return { sessionId: parseInput(sessionParamsSchema, request.params, 'session id').sessionId, caller };
}

/**
 * Sessions as rollouts: create one (with its key and base URLs), read it, end it, reward it or one of its calls,
 * read its reward history. A session key may post its own session's rewards and end it, nothing else.
 *
 * @example app.register(async (scope) => registerSessionRoutes(scope, context), { prefix: '/tokentap/v1' })
 */
export function registerSessionRoutes(app: FastifyInstance, context: GatewayContext): void {
  const control = context.rollouts;
  const params = sessionParamsSchema;

  app.post(
    '/sessions',
    {
      schema: routeSchema({
        summary: 'Create a rollout session: its id, key (shown once) and base URLs',
        access: 'admin',
        body: createSessionSchema,
        response: { 201: RESPONSES.createdSession },
      }),
    },
    async (request, reply) => {
      authorizeCaller(request, context);
      return reply.code(201).send(control.createSession(request.body ?? {}, baseUrlOf(request, context)));
    },
  );

  app.get<{ Params: { sessionId: string } }>(
    '/sessions/:sessionId',
    {
      schema: routeSchema({
        summary: 'A session: status, rollout fields, current rewards',
        access: 'admin',
        params,
        response: { 200: RESPONSES.session },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      return control.sessionInfo(parseInput(sessionParamsSchema, request.params, 'session id').sessionId);
    },
  );

  app.post<{ Params: { sessionId: string } }>(
    '/sessions/:sessionId/end',
    {
      schema: routeSchema({
        summary: 'End a session (default completed); later calls to it get 409',
        access: 'admin or session key',
        params,
        body: endSessionSchema,
        response: { 200: RESPONSES.session },
      }),
    },
    async (request) => {
      const { sessionId } = sessionOf(request, context);
      const { status } = parseInput(endSessionSchema, request.body ?? {}, 'end request');
      return control.endSession(sessionId, status);
    },
  );

  app.post<{ Params: { sessionId: string } }>(
    '/sessions/:sessionId/reward',
    {
      schema: routeSchema({
        summary: 'Reward the session, or one call (callId); the newest wins, history is kept',
        access: 'admin or session key',
        params,
        body: rewardSchema,
        response: { 201: RESPONSES.reward },
      }),
    },
    async (request, reply) => {
      const { sessionId, caller } = sessionOf(request, context);
      return reply.code(201).send(control.reward(sessionId, request.body, caller));
    },
  );

  app.get<{ Params: { sessionId: string } }>(
    '/sessions/:sessionId/rewards',
    {
      schema: routeSchema({
        summary: 'Every reward posted for the session, oldest first',
        access: 'admin',
        params,
        response: { 200: RESPONSES.rewards },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      return { rewards: control.rewardHistory(parseInput(sessionParamsSchema, request.params, 'session id').sessionId) };
    },
  );
}
