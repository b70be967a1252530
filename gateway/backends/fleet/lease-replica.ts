import type { FleetReplica } from './fleet-replica.js';
import type { ReplicaLease } from './fleet-types.js';

/**
 * One attempt on a replica: counted in flight until `release`, which counts the attempt once (a second release, on a
 * path that ends the attempt twice, changes nothing) and its error by code.
 *
 * @example
 * const lease = leaseReplica(replica);
 * lease.release({ ok: false, code: 'TT_BACKEND_UNREACHABLE' });
 */
export function leaseReplica(replica: FleetReplica): ReplicaLease {
  replica.inFlight += 1;
  let released = false;
  return {
    id: replica.id,
    flavour: replica.flavour,
    client: replica.client,
    capabilities: replica.capabilities,
    release(outcome) {
      if (released) return;
      released = true;
      replica.inFlight -= 1;
      replica.calls += 1;
      if (!outcome.ok) replica.errors[outcome.code] = (replica.errors[outcome.code] ?? 0) + 1;
    },
  };
}
