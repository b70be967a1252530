import type { BackendSpec } from '../backends/fleet/fleet-types.js';
import type { GatewayConfig } from './gateway-config.js';

/**
 * The replicas a gateway fronts: the `backends` list, each with its own key or else the gateway's `backendKey`; with
 * none listed, the one `backendUrl` as replica `default`, whose flavour (vLLM or SGLang) the start-up probe detects.
 *
 * @example backendSpecs(gatewayConfigSchema.parse({ backends: ['vllm=http://10.0.0.1:8000', 'sglang=http://10.0.0.3:30000'] }))
 * // [{ id: 'vllm-1', flavour: 'vllm', url: 'http://10.0.0.1:8000', models: [], key: undefined }, { id: 'sglang-1', ... }]
 */
export function backendSpecs(config: Pick<GatewayConfig, 'backends' | 'backendUrl' | 'backendKey'>): BackendSpec[] {
  if (config.backends.length === 0) {
    return [{ id: 'default', flavour: 'vllm', url: config.backendUrl, models: [], key: config.backendKey, detectFlavour: true }];
  }
  return config.backends.map((entry) => ({
    id: entry.id,
    flavour: entry.flavour,
    url: entry.url,
    models: [...entry.models],
    key: entry.key ?? config.backendKey,
  }));
}
