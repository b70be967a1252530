import { tracingChannel } from 'node:diagnostics_channel';
import type { GatewayWithSim } from '../../helpers/gateway-with-sim.js';
import type { CreatedSession } from '../../../gateway/rollouts/rollout-api.js';
import { ADMIN_TOKEN, api, chatBody, postChat, type ApiAnswer } from '../rollouts/rollout-test-helpers.js';

/** What `GET /tokentap/v1/batches` answers with 200. */
export interface PulledBatch {
  batchId: string;
  consumer: string;
  leaseExpiresAt: number;
  format: string;
  groups: string[];
  rows: Array<Record<string, unknown>>;
  summary: { groups: number; sessions: number; samples: number; dropped: Record<string, number> };
  provenance: { schema_version: string; tokentap_version: string; tokenizer_hash: string; chat_template_hash: string };
}

export type ErrorAnswer = ApiAnswer<{ error: { code: string; message: string } }>;

/**
 * A group run the way a trainer runs one: declared, one session per reward (`{groupId}-r{index}`), each makes a
 * chat call through its session's base URL, is rewarded and ends; the last end completes the group.
 */
export async function runGroup(setup: GatewayWithSim, groupId: string, rewards: number[]): Promise<string[]> {
  await api(setup, 'POST', '/groups', { body: { id: groupId, expectedSize: rewards.length } });
  const sessions: CreatedSession[] = [];
  for (const [index, reward] of rewards.entries()) {
    // ids in creation order: rollouts created in the same millisecond are ordered by id
    const created = (await api<CreatedSession>(setup, 'POST', '/sessions', { body: { id: `${groupId}-r${index}`, groupId } })).body;
    const answer = await postChat(created.baseUrls.openai, created.apiKey, chatBody(`task ${groupId}`));
    if (answer.status !== 200) throw new Error(`chat call failed: ${JSON.stringify(answer.body)}`);
    await api(setup, 'POST', `/sessions/${created.session.id}/reward`, { body: { value: reward } });
    sessions.push(created);
  }
  for (const created of sessions) await api(setup, 'POST', `/sessions/${created.session.id}/end`, { body: {} });
  return sessions.map((created) => created.session.id);
}

/** `GET /tokentap/v1/batches` with these query parameters (admin token unless told otherwise). */
export function pull<T = PulledBatch>(
  setup: GatewayWithSim,
  query: Record<string, string>,
  options: { credential?: string | null; signal?: AbortSignal } = {},
): Promise<ApiAnswer<T>> {
  if (options.signal === undefined) return api<T>(setup, 'GET', `/batches?${new URLSearchParams(query)}`, options);
  return fetch(`${setup.url}/tokentap/v1/batches?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${options.credential ?? ADMIN_TOKEN}` },
    signal: options.signal,
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as T, headers: response.headers }));
}

/**
 * Resolves when the next pull's handler has run up to its first wait (`end`: the long poll is waiting, its waiter
 * registered) or has answered (`asyncEnd`). Fastify publishes both on the `fastify.request.handler` tracing channel,
 * so tests wait for the server itself instead of for time.
 */
export function nextPullHandler(phase: 'end' | 'asyncEnd'): Promise<void> {
  const channel = tracingChannel<string, { route: { url: string } }>('fastify.request.handler');
  return new Promise((resolve) => {
    const ignore = (): void => undefined;
    const handlers = { start: ignore, end: ignore, asyncStart: ignore, asyncEnd: ignore, error: ignore };
    handlers[phase] = (message?: { route: { url: string } }) => {
      if (message?.route.url !== '/tokentap/v1/batches') return;
      channel.unsubscribe(handlers);
      resolve();
    };
    channel.subscribe(handlers);
  });
}
