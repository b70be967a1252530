import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { GatewayConfig } from '../config/gateway-config.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { hostnameOf } from '../config/hostname-of.js';

/** Names of this machine a Host header may always carry: only a local client can send them to a local server. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/**
 * Which Host headers this gateway answers, against DNS rebinding: a page in a local browser whose name the attacker
 * points at 127.0.0.1 (or at a private address) reaches the gateway with the attacker's name in Host, and without
 * this check could make keyless model calls, or read what a keyless route serves. Taken: no Host (HTTP/1.0; a
 * browser always sends one), the loopback names, any IP address (a rebinding page cannot send one: its Host is
 * always its own name), the bound host when it is a name, the host of `publicUrl`, and `allowedHosts` (a leading dot
 * takes the name and every subdomain; `*` takes any Host, the off switch).
 *
 * @example isAllowedHost(config)('evil.example:4000') // false, unless allowedHosts names it
 */
export function isAllowedHost(config: Pick<GatewayConfig, 'host' | 'publicUrl' | 'allowedHosts'>): (header: string | undefined) => boolean {
  if (config.allowedHosts.includes('*')) return () => true;
  const entries = config.allowedHosts.map((entry) => (entry.startsWith('.') ? `.${hostnameOf(entry.slice(1)) ?? ''}` : hostnameOf(entry)));
  const exact = new Set<string>(LOOPBACK_NAMES);
  const bound = hostnameOf(config.host);
  if (bound !== null) exact.add(bound);
  if (config.publicUrl !== undefined) {
    const publicName = hostnameOf(new URL(config.publicUrl).host);
    if (publicName !== null) exact.add(publicName);
  }
  const suffixes: string[] = [];
  for (const entry of entries) {
    if (entry === null || entry === '.') continue;
    if (entry.startsWith('.')) suffixes.push(entry);
    else exact.add(entry);
  }
  return (header) => {
    if (header === undefined || header === '') return true;
    const name = hostnameOf(header);
    if (name === null) return false;
    if (exact.has(name) || isIP(name) !== 0) return true;
    return suffixes.some((suffix) => name === suffix.slice(1) || name.endsWith(suffix));
  };
}

/**
 * Refuses a request whose Host is not one `isAllowedHost` takes, on every route and before its body is read, with
 * 421 TT_HOST_NOT_ALLOWED in the route's protocol shape (the route's own error handler answers, as for the rate
 * limit). 421 Misdirected Request (RFC 9110 section 15.5.20) says this server does not answer for that authority;
 * unlike 403 it is no verdict on a credential, and the OpenAI and Anthropic SDKs do not retry it.
 *
 * @example registerHostCheck(app, config) // before the routes' scopes
 */
export function registerHostCheck(app: FastifyInstance, config: Pick<GatewayConfig, 'host' | 'publicUrl' | 'allowedHosts'>): void {
  const allowed = isAllowedHost(config);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.host;
    if (allowed(header)) return;
    const shown = JSON.stringify(String(header).slice(0, 255));
    throw new TokentapError('TT_HOST_NOT_ALLOWED', {
      message: `Host ${shown} is not a name this gateway answers to (DNS rebinding guard): add it with --allowed-hosts (TOKENTAP_ALLOWED_HOSTS), or use the gateway's IP address`,
    });
  });
}
