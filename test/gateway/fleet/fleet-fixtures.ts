import { expect } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../../../gateway/create-gateway.js';
import type { BackendFlavour, ReplicaSnapshot } from '../../../gateway/backends/fleet/fleet-types.js';
import { rendezvousPick } from '../../../gateway/backends/fleet/rendezvous-pick.js';
import { createSimBackend, type SimBackend, type SimBackendOptions, type SimGenerationRecord } from '../../../sim/index.js';
import type { CallRow } from '../../../store/types.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

export const ADMIN_TOKEN = 'admin-token-of-the-fleet-tests';
const ADMIN_HEADERS = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** One simulated replica of the fleet: a simulator of its flavour listening on its own port. */
export interface SimReplica {
  /** the fleet id the gateway knows it by */
  id: string;
  flavour: BackendFlavour;
  options: SimBackendOptions;
  sim: SimBackend;
  url: string;
  port: number;
  /** records of the simulator now listening from before the test's calls (the start-up probe's) */
  probeRecords: number;
  /** false once `kill` closed it (until `restart`) */
  listening: boolean;
}

export interface ReplicaWanted {
  flavour: BackendFlavour;
  /** simulator options; `flavour` is set from the entry */
  sim?: SimBackendOptions;
  /** the entry's `models` in the gateway's `backends` (default: what the replica's /v1/models lists) */
  models?: string[];
}

export interface SimFleet {
  gateway: Gateway;
  url: string;
  replicas: SimReplica[];
  replica(id: string): SimReplica;
  /** the simulator records of this replica's generations for the test's calls (its start-up probe's left out) */
  records(id: string): SimGenerationRecord[];
  /** an OpenAI base URL for a session: `${url}/s/${session}/v1` */
  openaiBase(session: string): string;
  /** closes the replica's simulator, cutting whatever it is answering */
  kill(id: string): Promise<void>;
  /** a new simulator with the same options on the killed replica's port */
  restart(id: string): Promise<void>;
  /** `GET /tokentap/v1/backends` with the admin token */
  backends(): Promise<ReplicaSnapshot[]>;
  close(): Promise<void>;
}

/**
 * Simulators of the given flavours, each on its own port, behind one gateway (`backends`, ids `<flavour>-<n>` in
 * order) that records into a temp SQLite file and has the admin API on (ADMIN_TOKEN). The gateway has listened, so
 * its start-up probe asked every replica once.
 */
export async function startSimFleet(wanted: ReplicaWanted[], gatewayOptions: GatewayOptions = {}): Promise<SimFleet> {
  const temp = makeTempDir();
  const counts = new Map<BackendFlavour, number>();
  const replicas: SimReplica[] = [];
  for (const entry of wanted) {
    const number = (counts.get(entry.flavour) ?? 0) + 1;
    counts.set(entry.flavour, number);
    const options: SimBackendOptions = { ...entry.sim, flavour: entry.flavour };
    const sim = await createSimBackend(options);
    const url = await sim.listen();
    replicas.push({
      id: `${entry.flavour}-${number}`,
      flavour: entry.flavour,
      options,
      sim,
      url,
      port: Number(new URL(url).port),
      probeRecords: 0,
      listening: true,
    });
  }
  const gateway = createGateway({
    backends: replicas.map((replica, index) => ({
      id: replica.id,
      flavour: replica.flavour,
      url: replica.url,
      ...(wanted[index]!.models === undefined ? {} : { models: wanted[index]!.models }),
    })),
    db: temp.file('tokentap.db'),
    port: 0,
    adminToken: ADMIN_TOKEN,
    ...gatewayOptions,
  });
  const url = await gateway.listen();
  for (const replica of replicas) replica.probeRecords = replica.sim.log.length;
  const replica = (id: string): SimReplica => {
    const found = replicas.find((candidate) => candidate.id === id);
    if (found === undefined) throw new Error(`no replica ${id}`);
    return found;
  };
  return {
    gateway,
    url,
    replicas,
    replica,
    records: (id) => replica(id).sim.log.slice(replica(id).probeRecords),
    openaiBase: (session) => `${url}/s/${session}/v1`,
    async kill(id) {
      const target = replica(id);
      target.listening = false;
      await target.sim.close();
    },
    async restart(id) {
      const target = replica(id);
      target.sim = await createSimBackend(target.options);
      await target.sim.listen({ port: target.port });
      target.probeRecords = 0;
      target.listening = true;
    },
    async backends() {
      const answer = await fetch(`${url}/tokentap/v1/backends`, { headers: ADMIN_HEADERS });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { backends: ReplicaSnapshot[] }).backends;
    },
    async close() {
      await gateway.close();
      await Promise.all(replicas.filter((candidate) => candidate.listening).map((candidate) => candidate.sim.close()));
      temp.remove();
    },
  };
}

/** POSTs an admin action (`/tokentap/v1/backends/{id}/drain`, ...) and returns its status and JSON. */
export async function adminPost(url: string, path: string): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(`${url}${path}`, { method: 'POST', headers: ADMIN_HEADERS });
  return { status: answer.status, body: await answer.json() };
}

/**
 * A session id (`<base>-<n>`, the first n that does) that rendezvous hashing places on `replicaId` among `replicaIds`
 * (the pool's replicas in service): how the fleet places a session's first call (docs/backends.md, "Routing").
 */
export function sessionPlacedOn(base: string, replicaId: string, replicaIds: readonly string[]): string {
  for (let index = 0; index < 1000; index++) {
    const candidate = `${base}-${index}`;
    if (rendezvousPick(candidate, replicaIds) === replicaId) return candidate;
  }
  throw new Error(`no session id placed on ${replicaId}`);
}

/**
 * Finds the generation of `call` in the log of the replica that served it (by its prompt ids: every prompt of these
 * tests is unique) and asserts the call holds exactly what that simulator generated: prompt ids, completion ids
 * (end of turn included) and one float32 logprob per id. Seeds differ per replica, so the logprobs of another
 * replica would not match.
 */
export function expectCallMatchesItsReplica(fleet: SimFleet, call: CallRow): SimGenerationRecord {
  expect(call.backendId, `call ${call.id} names its replica`).not.toBeNull();
  const prompt = Array.from(call.promptTokenIds ?? []);
  const matching = fleet.records(call.backendId!).filter((record) => sameIds(record.promptTokenIds, prompt));
  expect(matching, `call ${call.seq} of ${call.sessionId}: one generation on ${call.backendId} with its prompt`).toHaveLength(1);
  const record = matching[0]!;
  expect(call.status).toBe('ok');
  expect(call.tokenSource).toBe('backend');
  expect(call.flags).toEqual([]);
  expect(Array.from(call.completionTokenIds ?? [])).toEqual(record.completionTokenIds);
  expect(Array.from(call.completionLogprobs ?? [])).toEqual(record.logprobs.map((logprob) => Math.fround(logprob)));
  return record;
}

function sameIds(left: readonly number[], right: readonly number[]): boolean {
  return left.length === right.length && left.every((id, index) => id === right[index]);
}
