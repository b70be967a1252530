import type { ServerResponse } from 'node:http';

/**
 * Writes to the harness and, when its socket buffer is full, waits for it to drain, so a slow harness slows
 * the backend read instead of making the gateway buffer without bound. Resolves false when the harness left.
 *
 * @example if (!(await writeWithBackpressure(reply.raw, text))) return;
 */
export async function writeWithBackpressure(response: ServerResponse, text: string): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return false;
  if (response.write(text)) return true;
  return new Promise<boolean>((resolve) => {
    const onDrain = (): void => {
      response.off('close', onClose);
      resolve(true);
    };
    const onClose = (): void => {
      response.off('drain', onDrain);
      resolve(false);
    };
    response.once('drain', onDrain);
    response.once('close', onClose);
  });
}
