import { UsageError } from './usage-error.js';

/** What `serve` needs of the gateway here: listen, and close what it opened (store, recorder worker, backend pool). */
interface ListeningGateway {
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts listening; on failure closes the gateway first (an open store and the recorder's worker thread would keep
 * the process alive: before, a busy port printed a stack and never exited), then throws. An address that is taken,
 * not this machine's, not allowed or not a host name is the user's to change: one line naming it and what to do
 * (a UsageError, exit 2). Anything else is rethrown as it came.
 *
 * @example const url = await listenOrExplain(gateway, { host: config.host, port: config.port });
 */
export async function listenOrExplain(gateway: ListeningGateway, address: { host: string; port: number }): Promise<string> {
  try {
    return await gateway.listen();
  } catch (error) {
    await gateway.close().catch(() => undefined);
    const reason = explainListenFailure((error as NodeJS.ErrnoException | null)?.code, address);
    throw reason === undefined ? error : new UsageError(reason, { cause: error });
  }
}

function explainListenFailure(code: string | undefined, { host, port }: { host: string; port: number }): string | undefined {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `${where} is already in use (another tokentap or another program listens there): stop it, or give another --port (--port 0 picks a free one)`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: ${host} is not an address of this machine: give --host 127.0.0.1 (this machine only) or --host 0.0.0.0 (every interface)`;
    case 'EACCES':
    case 'EPERM':
      return `cannot listen on ${where}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE): give --port 1024 or higher`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `cannot listen on ${where}: ${host} is no host name this machine can resolve: check --host`;
    default:
      return undefined;
  }
}
