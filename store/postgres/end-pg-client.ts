import type pg from 'pg';
import { settleWithin } from '../../core/async/settle-within.js';

/** How long a closing client waits for the server to see its goodbye before its socket is closed under it. */
export const PG_END_GRACE_MS = 1_000;

/**
 * Ends a `pg` client: gracefully (a Terminate message, the server closing its side) when the server answers within
 * `graceMs`, else by closing the socket. `client.end()` alone waits for the server to close the connection, which a
 * server gone silent (a partition, a frozen host) never does: a gateway's shutdown then hung for good.
 *
 * @example await endPgClient(client); // settled within PG_END_GRACE_MS, whatever the server does
 */
export async function endPgClient(client: pg.Client, graceMs = PG_END_GRACE_MS): Promise<void> {
  const ended = client.end().catch(() => undefined);
  if ((await settleWithin(ended, graceMs)) === null) client.connection.stream.destroy();
}
