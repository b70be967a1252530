import { isIP } from 'node:net';
import type { GatewayConfig } from '../config/gateway-config.js';

/**
 * Whether an address to bind reaches only this machine. `0.0.0.0` and `::` are every interface, so not loopback.
 *
 * @example isLoopbackHost('127.0.0.1') // true; isLoopbackHost('0.0.0.0') // false
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const ipv4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return isIP(ipv4) === 4 && ipv4.startsWith('127.');
}

/**
 * What is exposed when the gateway listens beyond loopback, one sentence each; empty on loopback. Without
 * `requireSessionKey` anyone who reaches the port uses the backend and writes sessions into the training data;
 * without `adminToken` no one can make the session keys that would keep them out.
 *
 * @example for (const warning of publicBindWarnings(config)) logger.warn({ host: config.host }, warning)
 */
export function publicBindWarnings(config: Pick<GatewayConfig, 'host' | 'adminToken' | 'requireSessionKey'>): string[] {
  if (isLoopbackHost(config.host)) return [];
  const warnings: string[] = [];
  if (!config.requireSessionKey) {
    warnings.push(
      `tokentap is bound to ${config.host}, beyond this machine, without --require-session-key: anyone who can reach it can use the backend and write calls into any session (the training data)`,
    );
  }
  if (config.adminToken === undefined) {
    warnings.push(
      `tokentap is bound to ${config.host} without --admin-token: the rollout API is off, so no session keys can be made over HTTP${config.requireSessionKey ? ' and every model call is refused' : ''}`,
    );
  }
  return warnings;
}
