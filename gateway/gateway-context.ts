import type { BackendClient } from './backends/vllm.js';
import type { BackendFleet } from './backends/fleet/fleet-types.js';
import type { GatewayConfig } from './config/gateway-config.js';
import type { Recorder } from './recorder/recorder.js';
import type { TokenFaithful } from './token-faithful/create-token-faithful.js';
import type { RolloutControl } from './rollouts/rollout-control.js';
import type { GatewayMetrics } from './metrics/gateway-metrics.js';

/** What every front door needs, built once by createGateway. */
export interface GatewayContext {
  config: GatewayConfig;
  /** every backend replica, one pool per model (docs/backends.md): each call's attempts lease a replica from it */
  fleet: BackendFleet;
  /** requests of no session that generate nothing (/tokenize, count_tokens, the model list): any replica of the body's model */
  backend: BackendClient;
  recorder: Recorder;
  /** sessions, keys, rewards, groups, policy versions, pause and drain (docs/rollouts.md) */
  rollouts: RolloutControl;
  /** Prometheus counters and histograms of this gateway, served on /metrics */
  metrics: GatewayMetrics;
  /** this gateway process in the database's gateway_instances: every call it begins carries it */
  instanceId: string;
  /** token-in-token-out mode, when `tokenFaithful` names any model (docs/token-faithful.md) */
  tokenFaithful?: TokenFaithful;
}
