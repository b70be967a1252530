import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { GatewayContext } from '../gateway-context.js';
import {
  declareGroupSchema,
  groupParamsSchema,
  groupQuerySchema,
  parseInput,
  pauseSchema,
  policyVersionSchema,
} from '../rollouts/rollout-schemas.js';
import { authorizeCaller } from './authorize-admin.js';
import { RESPONSES, routeSchema } from './route-schema.js';

/**
 * The trainer's side of the rollout API, admin only: groups (declare, read, long-poll until complete), the
 * policy version, and pause / resume / state for weight updates.
 *
 * @example app.register(async (scope) => registerControlRoutes(scope, context), { prefix: '/tokentap/v1' })
 */
export function registerControlRoutes(app: FastifyInstance, context: GatewayContext): void {
  const control = context.rollouts;

  app.post(
    '/groups',
    {
      schema: routeSchema({
        summary: 'Declare a group and its size; complete once that many of its sessions ended',
        access: 'admin',
        body: declareGroupSchema,
        response: { 201: RESPONSES.group },
      }),
    },
    async (request, reply) => {
      authorizeCaller(request, context);
      return reply.code(201).send(control.declareGroup(request.body));
    },
  );

  app.get<{ Params: { groupId: string }; Querystring: { waitMs?: string } }>(
    '/groups/:groupId',
    {
      schema: routeSchema({
        summary: 'A group; with waitMs, answers once it is complete or waitMs passed',
        access: 'admin',
        params: groupParamsSchema,
        querystring: groupQuerySchema,
        response: { 200: RESPONSES.group },
      }),
    },
    async (request, reply) => {
      authorizeCaller(request, context);
      const { groupId } = parseInput(groupParamsSchema, request.params, 'group id');
      const { waitMs } = parseInput(groupQuerySchema, request.query, 'query');
      const group = control.groupInfo(groupId);
      if (group.complete || waitMs === undefined || waitMs === 0) return group;
      // a long poll: end the wait when the client leaves, or when waitMs passes (then answer it as it is)
      const waiting = new AbortController();
      const timer = setTimeout(() => waiting.abort(), waitMs);
      reply.raw.once('close', () => waiting.abort());
      try {
        return await control.waitForGroup(groupId, waiting.signal);
      } catch {
        return control.groupInfo(groupId);
      } finally {
        clearTimeout(timer);
      }
    },
  );

  app.put(
    '/policy-version',
    {
      schema: routeSchema({
        summary: 'Set the weight version new calls are recorded under',
        access: 'admin',
        body: policyVersionSchema,
        response: { 200: RESPONSES.policyVersion },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      return control.setPolicyVersion(request.body);
    },
  );

  app.get(
    '/policy-version',
    {
      schema: routeSchema({ summary: 'The current weight version', access: 'admin', response: { 200: RESPONSES.policyVersion } }),
    },
    async (request) => {
      authorizeCaller(request, context);
      return control.store.getPolicyVersion() ?? { version: null, setAt: null };
    },
  );

  app.post(
    '/pause',
    {
      schema: routeSchema({
        summary: 'Pause new calls (hold or reject with 429); with drain, answer once none is in flight',
        access: 'admin',
        body: pauseSchema,
        response: { 200: RESPONSES.state },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      return control.pause(parseInput(pauseSchema, request.body ?? {}, 'pause request'));
    },
  );

  app.post(
    '/resume',
    {
      schema: routeSchema({
        summary: 'Release held calls; a no-op when not paused',
        access: 'admin',
        body: z.strictObject({}).optional(),
        response: { 200: RESPONSES.state },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      return control.resume();
    },
  );

  app.get(
    '/state',
    {
      schema: routeSchema({
        summary: 'Paused or not, calls in flight (count and ids), held calls, policy version',
        access: 'admin',
        response: { 200: RESPONSES.state },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      return control.state();
    },
  );
}
