import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { BackendFleet } from '../backends/fleet/fleet-types.js';
import { parseInput } from '../rollouts/rollout-schemas.js';
import { routeSchema } from './route-schema.js';

const backendParamsSchema = z.strictObject({ id: z.string().min(1).max(128).describe('the replica id (`tokentap backends`)') });

/** A replica's snapshot, for the OpenAPI document only (answers are the fleet's own ReplicaSnapshot objects). */
const replicaSnapshot = z.object({
  id: z.string(),
  flavour: z.enum(['vllm', 'sglang']),
  url: z.string(),
  models: z.array(z.string()),
  state: z.enum(['up', 'down', 'draining']),
  draining: z.boolean().describe('drained by the operator (state says down while a drained replica also fails its checks)'),
  lastError: z.string().nullable(),
  inFlight: z.number().int(),
  calls: z.number().int(),
  errors: z.record(z.string(), z.number()).describe('errors by code'),
  sessionsPinned: z.number().int(),
  capabilities: z.object({
    version: z.string().nullable(),
    detectedFlavour: z.enum(['vllm', 'sglang']).nullable(),
    models: z.array(z.string()),
    returnsTokenIds: z.boolean().nullable(),
    tokenIdsNote: z.string().nullable(),
    incrementalStreaming: z.boolean(),
  }),
});

/**
 * The fleet's side of the rollout API, admin only (docs/backends.md): every replica's state, and drain / undrain of
 * one for a weight reload or maintenance. `authorize` checks the caller (the admin API's `authorizeCaller`); an
 * unknown id is 404 `TT_BACKEND_NOT_FOUND` in the API's error shape.
 *
 * @example app.register(async (scope) => registerBackendRoutes(scope, fleet, (request) => authorizeCaller(request, context)), { prefix: '/tokentap/v1' })
 */
export function registerBackendRoutes(app: FastifyInstance, fleet: BackendFleet, authorize: (request: FastifyRequest) => unknown): void {
  app.get(
    '/backends',
    {
      schema: routeSchema({
        summary: 'Every backend replica: state, models, calls in flight, errors, sessions pinned, token ids, version',
        access: 'admin',
        response: { 200: z.object({ backends: z.array(replicaSnapshot) }) },
      }),
    },
    async (request) => {
      authorize(request);
      return { backends: fleet.snapshot() };
    },
  );

  // drain and undrain: one route shape around a different fleet action
  const replicaAction = (action: 'drain' | 'undrain', summary: string): void => {
    app.post<{ Params: { id: string } }>(
      `/backends/:id/${action}`,
      { schema: routeSchema({ summary, access: 'admin', params: backendParamsSchema, response: { 200: replicaSnapshot } }) },
      async (request) => {
        authorize(request);
        return fleet[action](parseInput(backendParamsSchema, request.params, 'backend id').id);
      },
    );
  };
  replicaAction('drain', 'Drain a replica: no new calls (in-flight ones finish), its sessions move to others');
  replicaAction('undrain', 'Put a drained replica back in service (its health is checked first when it was down)');
}
