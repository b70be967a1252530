/**
 * Waits for `promise` at most `ms`: its value (wrapped, so a value of `undefined` still counts as settled), its
 * rejection thrown as is, or null when it was still pending when the time ran out (it goes on; nothing cancels it).
 * The timer is cleared either way, so it keeps no process alive.
 *
 * @example const ended = await settleWithin(client.end(), 1_000); if (ended === null) socket.destroy();
 */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
