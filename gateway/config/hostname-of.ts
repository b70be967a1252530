import { isIP } from 'node:net';

/**
 * The name in a Host header (or an allowedHosts entry), lowercased, without port, brackets or a trailing dot;
 * null when it is not `name`, `name:port`, `[v6]` or `[v6]:port`.
 *
 * @example hostnameOf('LocalHost:4000') // 'localhost'; hostnameOf('[::1]:4000') // '::1'
 */
export function hostnameOf(value: string): string | null {
  const text = value.trim().toLowerCase();
  let name = text;
  let port = '';
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end === -1) return null;
    name = text.slice(1, end);
    port = text.slice(end + 1);
    if (isIP(name) !== 6) return null;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon !== -1) {
      name = text.slice(0, colon);
      port = text.slice(colon);
    }
    // an IPv6 address is bracketed in a Host header (RFC 9110 section 7.2); a bare one is an allowedHosts entry
    if (name.includes(':')) return isIP(text) === 6 ? text : null;
  }
  if (port !== '' && !/^:\d{0,5}$/.test(port)) return null;
  name = name.endsWith('.') ? name.slice(0, -1) : name;
  return name === '' || /[\s/@\\]/.test(name) ? null : name;
}
