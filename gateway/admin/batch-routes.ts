import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { readExportProvenance, type ExportProvenance } from '../../export/export-provenance.js';
import { LeasePool, type Lease } from '../batches/lease-pool.js';
import { batchPullQueryDoc, parseBatchPull } from '../batches/parse-batch-pull.js';
import { writeBatch } from '../batches/write-batch.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { GatewayContext } from '../gateway-context.js';
import { idSchema, parseInput } from '../rollouts/rollout-schemas.js';
import { authorizeCaller } from './authorize-admin.js';
import { RESPONSES, routeSchema } from './route-schema.js';

const batchParamsSchema = z.strictObject({ batchId: idSchema });

/**
 * The online pull API for asynchronous RL (docs/export.md, "Online pull API"), admin only: a trainer long-polls
 * `GET /batches` for complete groups in its format, then acknowledges the batch (consumed for good) or releases it;
 * an unacknowledged lease expires and its groups are served again (at-least-once). Leases are the store's, shared by
 * every gateway on it; the waiting pulls live as long as this gateway, woken by groups completing here and by the
 * pool's poll of the store.
 *
 * @example app.register(async (scope) => registerBatchRoutes(scope, context), { prefix: '/tokentap/v1' })
 */
export function registerBatchRoutes(app: FastifyInstance, context: GatewayContext): void {
  const pool = new LeasePool(context.rollouts.store);
  // hashed once (tokenizer.json is megabytes): the served model folder does not change under a running gateway
  let provenance: ExportProvenance | undefined;
  const readProvenance = (): ExportProvenance => (provenance ??= readExportProvenance({ modelDir: context.config.modelDir }));
  const unsubscribe = context.rollouts.events.on('group-complete', () => pool.wake());
  // before the server waits for open requests: waiting pulls answer 503 now, not after their waitMs
  app.addHook('preClose', async () => {
    unsubscribe();
    pool.close();
  });

  app.get<{ Querystring: Record<string, string | string[] | undefined> }>(
    '/batches',
    {
      schema: routeSchema({
        summary: 'Long-poll for at least minGroups complete groups as rows of a format, leased to this consumer; 204 when waitMs passes first',
        access: 'admin',
        querystring: batchPullQueryDoc,
        response: { 200: RESPONSES.batch, 204: z.null().describe('waitMs passed first') },
      }),
    },
    async (request, reply) => {
      authorizeCaller(request, context);
      const pull = parseBatchPull(request.query);
      const waiting = new AbortController();
      let clientGone = false;
      const onClose = (): void => {
        clientGone = !reply.raw.writableFinished;
        waiting.abort();
      };
      reply.raw.once('close', onClose);
      const timer = setTimeout(() => waiting.abort(), pull.waitMs);
      let lease: Lease | null;
      try {
        lease = pull.waitMs === 0 ? pool.tryLease(pull.lease) : await pool.lease(pull.lease, waiting.signal);
      } finally {
        clearTimeout(timer);
      }
      if (lease === null) return reply.code(204).send();
      // the client left while the lease was being made: nobody will acknowledge it
      if (clientGone || request.raw.socket?.destroyed === true) {
        pool.release(lease.batchId);
        return reply.code(204).send();
      }
      reply.raw.off('close', onClose);
      let whole: boolean;
      try {
        whole = await writeBatch({
          reply,
          lease,
          store: context.rollouts.store,
          adapter: pull.adapter,
          selection: pull.selection,
          provenance: readProvenance,
        });
      } catch (error) {
        pool.release(lease.batchId);
        throw error;
      }
      // a client that left mid-batch cannot acknowledge what it did not get: its groups go back to the pool now
      // (unless its lease already ended meanwhile, by expiry or shutdown)
      if (!whole && !pool.closed) {
        try {
          pool.release(lease.batchId);
        } catch {
          // the lease ended by itself while the batch was being written
        }
      }
    },
  );

  app.post<{ Params: { batchId: string } }>(
    '/batches/:batchId/ack',
    {
      schema: routeSchema({
        summary: 'Consume a leased batch for good: its groups are never served again; 409 once its lease expired or was released',
        access: 'admin',
        params: batchParamsSchema,
        body: z.strictObject({}).optional(),
        response: { 200: RESPONSES.batchAck },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      const { batchId } = parseInput(batchParamsSchema, request.params, 'batch id');
      if (pool.closed) throw new TokentapError('TT_SHUTTING_DOWN');
      const ack = pool.ack(batchId);
      return { batchId: ack.batchId, consumer: ack.consumer, groups: ack.groupIds, ackedAt: ack.ackedAt };
    },
  );

  app.post<{ Params: { batchId: string } }>(
    '/batches/:batchId/release',
    {
      schema: routeSchema({
        summary: 'Give a leased batch back before its lease expires: its groups may be served to the next pull',
        access: 'admin',
        params: batchParamsSchema,
        body: z.strictObject({}).optional(),
        response: { 200: RESPONSES.batchRelease },
      }),
    },
    async (request) => {
      authorizeCaller(request, context);
      const { batchId } = parseInput(batchParamsSchema, request.params, 'batch id');
      if (pool.closed) throw new TokentapError('TT_SHUTTING_DOWN');
      const lease = pool.release(batchId);
      return { batchId: lease.batchId, consumer: lease.consumer, groups: lease.groupIds, released: true };
    },
  );
}
