import type { FleetReplica } from './fleet-replica.js';
import type { FleetLogger } from './fleet-logger.js';
import type { ReplicaProbe } from './probe-replica.js';

/**
 * Says what a probe found, loudly where it matters (issue 15: a backend that returns no token ids is never found
 * out later as silent `token_source: none` rows): a replica without token ids or with another flavour than
 * configured at error level, with what to do; one that is down at warn; a ready one at info.
 *
 * @example logReplicaProbe(logger, replica, probe, 'start');
 */
export function logReplicaProbe(logger: FleetLogger, replica: FleetReplica, probe: ReplicaProbe, when: 'start' | 'back up'): void {
  const { capabilities } = probe;
  const fields = { backend: replica.id, url: replica.client.url };
  if (!probe.healthy) {
    logger.warn({ ...fields, error: probe.error }, 'backend replica down at start; the health checks keep trying it');
    return;
  }
  const detected = capabilities.detectedFlavour;
  if (detected !== null && detected !== replica.spec.flavour && replica.spec.detectFlavour !== true) {
    logger.error(
      { ...fields, configured: replica.spec.flavour, detected },
      `backend replica is configured as ${replica.spec.flavour} but answers as ${detected}: fix its flavour in the backends config`,
    );
  }
  if (capabilities.returnsTokenIds === false) logger.error({ ...fields, note: capabilities.tokenIdsNote }, 'backend replica returns no token ids');
  else if (capabilities.returnsTokenIds === null) logger.warn({ ...fields, note: capabilities.tokenIdsNote }, 'backend replica token ids unknown');
  if (!replica.modelsKnown)
    logger.warn(fields, 'backend replica did not list its models (GET /v1/models): it takes calls for any model no other serves');
  logger.info(
    {
      ...fields,
      flavour: replica.flavour,
      version: capabilities.version,
      models: replica.spec.models.length > 0 ? replica.spec.models : capabilities.models,
      returnsTokenIds: capabilities.returnsTokenIds,
    },
    when === 'start' ? 'backend replica ready' : 'backend replica back up',
  );
}
