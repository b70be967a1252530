import type pg from 'pg';
import { SESSION_END_CHANNEL } from './migrations/008-session-end-notices.js';
import type { SessionEndListener, SessionEndWatch } from '../types.js';
import { DEFAULT_PG_CONNECT_TIMEOUT_MS } from './pg-database.js';
import { endPgClient } from './end-pg-client.js';

/** How long the watch waits before it connects again after losing its connection. */
export const SESSION_WATCH_RECONNECT_MS = 1_000;

/**
 * Listens on SESSION_END_CHANNEL on a connection of its own (asynchronous, on the calling thread: not the store's
 * worker, which answers one request at a time), announced by schema 8's trigger whenever a session's status changes.
 * It is live from the moment PostgreSQL acknowledged the LISTEN: every end committed after that is told, in commit
 * order. When the connection fails (the server restarted, the network dropped; TCP keep-alive finds a silent one) it
 * says so at once and connects again every SESSION_WATCH_RECONNECT_MS until it can.
 *
 * @example
 * const watch = watchPostgresSessionEnds(url, { ended: (id) => cache.forget(id), liveChanged: (live) => live || cache.clear() });
 * await watch.close();
 */
export function watchPostgresSessionEnds(
  connectionString: string,
  listener: SessionEndListener,
  options: { reconnectMs?: number; applicationName?: string } = {},
): SessionEndWatch {
  const reconnectMs = options.reconnectMs ?? SESSION_WATCH_RECONNECT_MS;
  let live = false;
  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const setLive = (next: boolean): void => {
    if (live === next) return;
    live = next;
    listener.liveChanged(next);
  };

  const lost = (failed: pg.Client): void => {
    if (client !== failed) return;
    client = null;
    setLive(false);
    void endPgClient(failed);
    if (!closed && retry === null) {
      retry = setTimeout(() => {
        retry = null;
        void connect();
      }, reconnectMs);
      retry.unref();
    }
  };

  async function connect(): Promise<void> {
    if (closed) return;
    // loaded here, not with the store: a SQLite gateway's thread never loads `pg` (its stream module touches
    // globalThis.Response as it loads, which made two tests' gateways wait for the shutdown timeout on close)
    const { default: driver } = await import('pg');
    if (closed) return;
    const fresh = new driver.Client({
      connectionString,
      connectionTimeoutMillis: DEFAULT_PG_CONNECT_TIMEOUT_MS,
      // a connection that went silent (a partition, no FIN) is found within seconds, not the system's hours
      keepAlive: true,
      keepAliveInitialDelayMillis: 5_000,
      application_name: options.applicationName ?? 'tokentap-session-watch',
    });
    client = fresh;
    fresh.on('error', () => lost(fresh));
    fresh.on('end', () => lost(fresh));
    fresh.on('notification', (notice) => {
      if (client === fresh && notice.channel === SESSION_END_CHANNEL && notice.payload !== undefined) listener.ended(notice.payload);
    });
    try {
      await fresh.connect();
      await fresh.query(`LISTEN ${SESSION_END_CHANNEL}`);
      if (client === fresh && !closed) setLive(true);
    } catch {
      lost(fresh);
    }
  }

  void connect();
  return {
    get live() {
      return live;
    },
    async close() {
      closed = true;
      if (retry !== null) clearTimeout(retry);
      retry = null;
      const current = client;
      client = null;
      // the reader closed it: nothing to tell (a `false` would read as a connection lost)
      live = false;
      if (current !== null) await endPgClient(current);
    },
  };
}
