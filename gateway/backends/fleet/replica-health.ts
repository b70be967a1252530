import { checkReplicaHealth } from './check-replica-health.js';
import type { FleetReplica } from './fleet-replica.js';
import type { FleetLogger } from './fleet-logger.js';
import { logReplicaProbe } from './log-replica-probe.js';
import { probeReplica, type ReplicaProbe } from './probe-replica.js';
import type { SessionPins } from './session-pins.js';

/** The health side of a fleet: the start-up probe, the checks, and taking a replica down. */
export interface ReplicaHealth {
  /** the start-up probe of one replica: what it is, and up or down */
  probeAtStart(replica: FleetReplica): Promise<void>;
  /** one health check of one replica (a down one is probed whole, and back up when it passes) */
  checkOne(replica: FleetReplica): Promise<void>;
  /** out of its pools with its sessions unpinned, logged once per transition (warn) */
  takeDown(replica: FleetReplica, reason: string): void;
}

export interface ReplicaHealthOptions {
  logger: FleetLogger;
  pins: SessionPins;
  /** ms one probe or check of one replica may take */
  probeTimeoutMs: number;
  /** aborted when the fleet closes: checks in flight end, and their results are dropped */
  closing: AbortSignal;
}

/**
 * Brings replicas up and down. Every health change moves the replica's `epoch`, and a check applies its result only
 * if the epoch is the one it began in: a check that started before a `markFailed` cannot undo it a moment later.
 *
 * @example
 * const health = createReplicaHealth({ logger, pins, probeTimeoutMs: 5000, closing: controller.signal });
 * await Promise.all(replicas.map(health.checkOne));
 */
export function createReplicaHealth(options: ReplicaHealthOptions): ReplicaHealth {
  const { logger, pins, closing } = options;
  /** counts the fleet's downs: a replica's `downSince` orders it among the others down */
  let downs = 0;
  const probeSignal = (): AbortSignal => AbortSignal.any([AbortSignal.timeout(options.probeTimeoutMs), closing]);

  function applyProbe(replica: FleetReplica, probe: ReplicaProbe): void {
    replica.capabilities = probe.capabilities;
    replica.modelsKnown = replica.spec.models.length > 0 || probe.modelsListed;
    const detected = probe.capabilities.detectedFlavour;
    if (replica.spec.detectFlavour === true && detected !== null) replica.flavour = detected;
  }

  /** Out of service with its sessions unpinned; the number of sessions moved, or null when it was down already. */
  function setDown(replica: FleetReplica, reason: string | null): number | null {
    replica.epoch += 1;
    replica.lastError = reason;
    if (!replica.healthy) return null;
    replica.healthy = false;
    downs += 1;
    replica.downSince = downs;
    return pins.unpinReplica(replica.id);
  }

  function takeDown(replica: FleetReplica, reason: string): void {
    const sessionsMoved = setDown(replica, reason);
    if (sessionsMoved === null) return;
    logger.warn(
      { backend: replica.id, url: replica.client.url, reason, sessionsMoved },
      'backend replica down: out of its pools until a health check passes',
    );
  }

  function bringUp(replica: FleetReplica, probe: ReplicaProbe): void {
    replica.epoch += 1;
    applyProbe(replica, probe);
    replica.healthy = true;
    replica.lastError = null;
    logReplicaProbe(logger, replica, probe, 'back up');
  }

  /** A down replica (or one whose models are unknown) is probed whole; an up one asked `GET /health`. */
  async function runCheck(replica: FleetReplica): Promise<void> {
    const epoch = replica.epoch;
    if (!replica.healthy || !replica.modelsKnown) {
      // an up replica is asked its models again, not for a token: what it returns was learned when it came up
      const known = replica.healthy
        ? { returnsTokenIds: replica.capabilities.returnsTokenIds, tokenIdsNote: replica.capabilities.tokenIdsNote }
        : undefined;
      const probe = await probeReplica(replica.client, { spec: replica.spec, signal: probeSignal(), tokenIds: known });
      if (replica.epoch !== epoch || closing.aborted) return;
      if (!probe.healthy) takeDown(replica, probe.error ?? 'health check failed');
      else if (!replica.healthy) bringUp(replica, probe);
      else applyProbe(replica, probe);
      return;
    }
    const error = await checkReplicaHealth(replica.client, probeSignal());
    if (replica.epoch !== epoch || closing.aborted) return;
    if (error !== null) takeDown(replica, error);
  }

  /** One check per replica at a time; a check begun before the latest health change is followed by a fresh one. */
  function checkOne(replica: FleetReplica): Promise<void> {
    const running = replica.checking;
    if (running !== null && running.epoch === replica.epoch) return running.done;
    const epoch = replica.epoch;
    const done = (running?.done ?? Promise.resolve())
      .then(() => runCheck(replica))
      .catch((error: unknown) => logger.error({ backend: replica.id, err: error }, 'backend replica health check failed unexpectedly'));
    const checking = {
      epoch,
      done: done.finally(() => {
        if (replica.checking === checking) replica.checking = null;
      }),
    };
    replica.checking = checking;
    return checking.done;
  }

  async function probeAtStart(replica: FleetReplica): Promise<void> {
    const probe = await probeReplica(replica.client, { spec: replica.spec, signal: probeSignal() });
    applyProbe(replica, probe);
    // down at start is said once, by logReplicaProbe
    if (probe.healthy) replica.lastError = null;
    else setDown(replica, probe.error);
    logReplicaProbe(logger, replica, probe, 'start');
  }

  return { probeAtStart, checkOne, takeDown };
}
