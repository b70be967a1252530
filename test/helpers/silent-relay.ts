import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of a server that can go silent as a network partition or a frozen host does: frozen, it stops
 * reading and writing on every connection, old and new, without closing any (TCP holds the bytes back, no error
 * tells anyone); thawed, the bytes flow again. It runs on the calling thread: what it relays for must be another
 * thread or process (a store's connection waits synchronously).
 *
 * @example
 * const relay = await SilentRelay.start(new URL(databaseUrl)); // then connect to 127.0.0.1:relay.port
 * relay.freeze(); ... relay.thaw(); await relay.close();
 */
export class SilentRelay {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #frozen = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: URL): Promise<SilentRelay> {
    const server = createServer();
    const relay = new SilentRelay(server);
    server.on('connection', (client) => relay.#pipe(client, connect(Number(target.port), target.hostname)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  #pipe(client: Socket, upstream: Socket): void {
    // by hand, not pipe(): a pipe resumes its source by itself, and a frozen socket must stay paused
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      if (this.#frozen) socket.pause();
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  }

  freeze(): void {
    this.#frozen = true;
    for (const socket of this.#sockets) socket.pause();
  }

  thaw(): void {
    this.#frozen = false;
    for (const socket of this.#sockets) socket.resume();
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
