import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CallDetail } from '../viewer-api.js';
import { callMessages } from './call-messages.js';
import { toTimelineItem } from './call-timeline.js';
import type { ChangeEvents } from './change-events.js';
import { listGroups, readGroupDetail } from './group-views.js';
import { findCall, readSampleTokens, readSessionDetail, type SessionReading } from './session-detail.js';
import { listSessionItems } from './session-list.js';
import { readStats } from './stats-view.js';
import type { ViewerSummary } from '../viewer-api.js';
import type { ViewerRemote } from './viewer-options.js';
import { callParams, groupParams, noQuery, parseInput, sampleParams, sessionListQuery, sessionParams } from './viewer-queries.js';
import { VIEWER_RESPONSES, viewerRouteSchema } from './viewer-route-schema.js';

/** What the routes read, and how a request is let in. */
export interface ViewerRouteContext extends SessionReading {
  readSummary: () => ViewerSummary;
  /** where requests are answered instead (the viewer's thread); null: here */
  remote: ViewerRemote | null;
  events: ChangeEvents;
  authorize: (request: FastifyRequest) => void;
}

const statsQuery = z
  .record(z.string(), z.string())
  .describe(
    'the export selection (docs/export.md): since, until, tags, split, sessionIds, groupIds (or group), rewardMin, rewardMax, status, faithfulOnly, minLength, maxLength, maxStaleness, policyVersions, estimator, normalizeStd, epsilon, dropZeroVarianceGroups, strategy',
  );

/**
 * Every route of ui/viewer-api.ts, all GET, under the scope's prefix (VIEWER_API_PREFIX). Each asks `authorize`
 * first, then validates its input with zod (400 TT_INVALID_REQUEST naming the field).
 *
 * @example app.register(async (scope) => registerViewerRoutes(scope, context), { prefix: VIEWER_API_PREFIX })
 */
export function registerViewerRoutes(scope: FastifyInstance, context: ViewerRouteContext): void {
  const { store } = context;
  const eventsUrl = `${scope.prefix}/events`;
  scope.addHook('onRequest', async (request, reply) => {
    context.authorize(request);
    void reply.header('cache-control', 'no-store');
    // the event stream stays on this thread: it listens to the gateway's own events
    if (context.remote === null || request.routeOptions.url === eventsUrl) return;
    const answer = await context.remote.answer(request.method === 'HEAD' ? 'HEAD' : 'GET', request.url);
    if (answer.contentType !== null) void reply.header('content-type', answer.contentType);
    return reply.code(answer.statusCode).send(answer.body);
  });
  scope.get(
    '/summary',
    {
      schema: viewerRouteSchema({
        summary: 'Counts for the header of every page',
        querystring: noQuery,
        response: { 200: VIEWER_RESPONSES.summary },
      }),
    },
    async (request) => {
      parseInput(noQuery, request.query, 'query');
      return context.readSummary();
    },
  );
  scope.get(
    '/sessions',
    {
      schema: viewerRouteSchema({
        summary: 'Sessions: search, filters, sort and pages on the server',
        querystring: sessionListQuery,
        response: { 200: VIEWER_RESPONSES.sessions },
      }),
    },
    async (request) => listSessionItems(store, context.driftCache, parseInput(sessionListQuery, request.query, 'query')),
  );
  scope.get(
    '/sessions/:id',
    {
      schema: viewerRouteSchema({
        summary: "A session: its calls' timeline, the newest call's conversation, its samples under both strategies",
        params: sessionParams,
        response: { 200: VIEWER_RESPONSES.session },
      }),
    },
    async (request) => {
      parseInput(noQuery, request.query, 'query');
      return readSessionDetail(context, parseInput(sessionParams, request.params, 'path').id);
    },
  );
  scope.get(
    '/sessions/:id/samples/:strategy/:index',
    {
      schema: viewerRouteSchema({
        summary: 'A sample token by token (parallel arrays)',
        params: sampleParams,
        response: { 200: VIEWER_RESPONSES.sample },
      }),
    },
    async (request) => {
      parseInput(noQuery, request.query, 'query');
      const { id, strategy, index } = parseInput(sampleParams, request.params, 'path');
      return readSampleTokens(context, id, strategy, index);
    },
  );
  scope.get(
    '/calls/:id',
    {
      schema: viewerRouteSchema({
        summary: "A call's own messages: its request and its reply",
        params: callParams,
        response: { 200: VIEWER_RESPONSES.call },
      }),
    },
    async (request): Promise<CallDetail> => {
      parseInput(noQuery, request.query, 'query');
      const call = findCall(store, parseInput(callParams, request.params, 'path').id);
      return { call: toTimelineItem(call, store.listRewards(call.sessionId)), sessionId: call.sessionId, messages: callMessages(store, call) };
    },
  );
  scope.get(
    '/groups',
    {
      schema: viewerRouteSchema({ summary: 'Groups with their rollouts’ rewards', querystring: noQuery, response: { 200: VIEWER_RESPONSES.groups } }),
    },
    async (request) => {
      parseInput(noQuery, request.query, 'query');
      return listGroups(store);
    },
  );
  scope.get(
    '/groups/:groupId',
    {
      schema: viewerRouteSchema({
        summary: 'A group: its rollouts side by side, advantages, where they diverge',
        params: groupParams,
        response: { 200: VIEWER_RESPONSES.group },
      }),
    },
    async (request) => {
      parseInput(noQuery, request.query, 'query');
      return readGroupDetail(store, context.driftCache, context.texts, parseInput(groupParams, request.params, 'path').groupId);
    },
  );
  scope.get(
    '/stats',
    {
      schema: viewerRouteSchema({
        summary: 'tokentap stats --json for the selection in the query',
        querystring: statsQuery,
        response: { 200: VIEWER_RESPONSES.stats },
      }),
    },
    async (request) => readStats(store, request.query as Record<string, unknown>),
  );
  scope.get(
    '/events',
    {
      schema: viewerRouteSchema({
        summary: 'Server-sent events: change (data: the summary) when calls or sessions change; a comment every 15 s',
        response: { 200: z.string().describe('text/event-stream') },
      }),
    },
    async (request, reply) => {
      parseInput(noQuery, request.query, 'query');
      // fastify answers HEAD with the GET handler: say what GET would send, and open no stream that nobody reads
      if (request.method === 'HEAD') return reply.header('content-type', 'text/event-stream').send();
      context.events.open(request, reply);
    },
  );
}
