import type pg from 'pg';

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
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const ended = client.end().then(
    () => 'ended' as const,
    () => 'ended' as const,
  );
  try {
    if ((await Promise.race([ended, late])) === 'late') client.connection.stream.destroy();
  } finally {
    clearTimeout(timer);
  }
}
