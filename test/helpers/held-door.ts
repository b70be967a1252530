import { createServer, type Server } from 'node:http';

/** The simulator behind a door that holds generation requests until `release()`, then passes the simulator's answer on. */
export interface HeldDoor {
  url: string;
  server: Server;
  /** requests held now */
  readonly waiting: number;
  /** lets the held requests through, and every later one */
  release(): void;
  close(): Promise<void>;
}

export interface HeldDoorOptions {
  /** which generation requests wait (by their body); default every one */
  holds?: (body: string) => boolean;
}

/**
 * A door in front of the simulator, for tests that must act between a call's `in_progress` row and its end (fill the
 * disk, stop the database): the gateway's start-up probe and health checks (GETs) go through; generation requests
 * that `holds` picks wait until `release()`. Answers are passed on as the simulator gives them.
 *
 * @example
 * const door = await startHeldDoor(await sim.listen(), { holds: (body) => body.includes('HOLD') });
 * createGateway({ backendUrl: door.url, ... });
 */
export async function startHeldDoor(simUrl: string, options: HeldDoorOptions = {}): Promise<HeldDoor> {
  let open = false;
  const held: Array<() => void> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const pass = (): void => {
        // the gateway left (a killed gateway, a cut call): the simulator's answer is not wanted any more
        const upstream = new AbortController();
        response.on('close', () => upstream.abort());
        void fetch(`${simUrl}${request.url}`, {
          method: request.method,
          headers: { 'content-type': 'application/json' },
          ...(body.length > 0 ? { body } : {}),
          signal: upstream.signal,
        })
          .then(async (answer) => {
            response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
            // passed on as it comes: a stream reaches the gateway at the simulator's pace
            for await (const chunk of answer.body ?? []) response.write(chunk);
            response.end();
          })
          // the simulator closed under it (a test ending early), or the gateway left: the gateway sees its backend cut
          .catch(() => response.destroy());
      };
      if (open || request.method === 'GET' || !(options.holds?.(body.toString('utf8')) ?? true)) pass();
      else held.push(pass);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    get waiting() {
      return held.length;
    },
    release() {
      open = true;
      for (const pass of held.splice(0)) pass();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
