import { parseArgs } from 'node:util';
import type { ReplicaSnapshot } from '../../gateway/backends/fleet/fleet-types.js';
import { askGateway, GatewayRefusal, type GatewayAddress } from '../ask-gateway.js';
import { formatTable } from '../format-table.js';
import { loadConfig } from '../load-config.js';
import { oneLine } from '../one-line.js';
import { UsageError } from '../usage-error.js';

export const BACKENDS_HELP = `Usage: tokentap backends [drain ID | undrain ID] [--url URL] [--admin-token TOKEN] [--config FILE] [--json]

Shows each backend replica of a running gateway: its state (up, down, draining), models, calls in flight,
calls, errors, sessions pinned, whether it returns token ids (and why not), and its version; notes below the
table say why a replica is down or has no token ids, and its errors by code. Asks GET /tokentap/v1/backends.
  drain ID             take a replica out of service (no new calls; in-flight ones finish, its sessions move)
  undrain ID           put it back (its health is checked first when it was down)
  --url URL            the gateway (default http://HOST:PORT of the config: --config, TOKENTAP_HOST, TOKENTAP_PORT)
  --admin-token TOKEN  the gateway's admin token (also TOKENTAP_ADMIN_TOKEN, or "adminToken" in the config file)
  --config FILE        YAML or JSON config file, as for tokentap serve (also TOKENTAP_CONFIG)
  --json               the replicas' snapshots, one JSON object per line

Example: tokentap backends drain vllm-2 --url http://gpu-gateway:4000
A gateway that cannot be reached, a wrong token or an unknown ID is one line and exit 2.
`;

const ACTIONS = new Set(['drain', 'undrain']);

/** `tokentap backends` */
export async function runBackends(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const options = {
    url: { type: 'string' },
    'admin-token': { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  if (values.help) {
    process.stdout.write(BACKENDS_HELP);
    return 0;
  }
  const [action, id, extra] = positionals;
  if (action !== undefined && !ACTIONS.has(action))
    throw new UsageError(`unknown action ${JSON.stringify(action)}: tokentap backends [drain ID | undrain ID]`);
  if (action !== undefined && (id === undefined || id === ''))
    throw new UsageError(`give the replica: tokentap backends ${action} ID (tokentap backends lists them)`);
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const address = gatewayAddress(values, env);
  try {
    const replicas =
      action === undefined
        ? readReplicas(await askGateway(address, 'GET', '/backends'))
        : [readReplica(await askGateway(address, 'POST', `/backends/${encodeURIComponent(id!)}/${action}`))];
    process.stdout.write(values.json ? replicas.map((replica) => `${JSON.stringify(replica)}\n`).join('') : formatReplicas(replicas));
    return 0;
  } catch (error) {
    // the gateway failed (a 5xx): said in one line, exit 1
    if (!(error instanceof GatewayRefusal)) throw error;
    process.stderr.write(`tokentap: ${error.message}\n`);
    return 1;
  }
}

/** The gateway's URL and admin token: the flags, else the config (`--config`, TOKENTAP_*) as `tokentap serve` reads it. */
function gatewayAddress(values: { url?: string; 'admin-token'?: string; config?: string }, env: NodeJS.ProcessEnv): GatewayAddress {
  const config = loadConfig(values.config === undefined ? {} : { config: values.config }, env);
  const adminToken = values['admin-token'] ?? config.adminToken;
  if (values.url !== undefined) {
    if (!/^https?:\/\/[^/]/.test(values.url)) throw new UsageError(`--url ${JSON.stringify(values.url)}: give the gateway as http://HOST:PORT`);
    return { url: values.url, adminToken };
  }
  // a gateway bound to every interface is reached on loopback from its own machine
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`, adminToken };
}

function readReplicas(body: unknown): ReplicaSnapshot[] {
  const backends = (body as { backends?: unknown } | null)?.backends;
  if (!Array.isArray(backends)) throw new GatewayRefusal(200, 'the gateway answered GET /tokentap/v1/backends without a backends list');
  return backends.map(readReplica);
}

function readReplica(body: unknown): ReplicaSnapshot {
  const replica = body as ReplicaSnapshot | null;
  if (typeof replica?.id !== 'string' || typeof replica.capabilities !== 'object')
    throw new GatewayRefusal(200, 'the gateway answered with no replica');
  return replica;
}

/** The table, then a note per replica that is down, has no token ids, or had errors. */
export function formatReplicas(replicas: readonly ReplicaSnapshot[]): string {
  if (replicas.length === 0) return 'no backend replicas\n';
  const table = formatTable(
    ['id', 'flavour', 'url', 'state', 'models', 'in flight', 'calls', 'errors', 'sessions pinned', 'token ids', 'version'],
    replicas.map((replica) => [
      replica.id,
      replica.flavour,
      replica.url,
      replica.draining && replica.state === 'down' ? 'down, drained' : replica.state,
      replica.models.join(',') || '?',
      replica.inFlight,
      replica.calls,
      Object.values(replica.errors).reduce((sum, count) => sum + count, 0),
      replica.sessionsPinned,
      tokenIdsCell(replica.capabilities.returnsTokenIds),
      replica.capabilities.version,
    ]),
  );
  const notes = replicas.flatMap((replica) => {
    const lines: string[] = [];
    if (replica.lastError !== null) lines.push(`${replica.id}: ${replica.state}: ${oneLine(replica.lastError)}`);
    if (replica.capabilities.tokenIdsNote !== null) lines.push(`${replica.id}: token ids: ${oneLine(replica.capabilities.tokenIdsNote)}`);
    const errors = Object.entries(replica.errors).filter(([, count]) => count > 0);
    if (errors.length > 0) lines.push(`${replica.id}: errors: ${errors.map(([code, count]) => `${code} ${count}`).join(', ')}`);
    return lines;
  });
  return notes.length === 0 ? table : `${table}\n${notes.join('\n')}\n`;
}

function tokenIdsCell(returnsTokenIds: boolean | null): string {
  if (returnsTokenIds === null) return 'unknown';
  return returnsTokenIds ? 'yes' : 'no';
}
