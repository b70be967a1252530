import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../gateway/create-gateway.js';
import { gatewayConfigSchema } from '../../gateway/config/gateway-config.js';
import { hostnameOf } from '../../gateway/config/hostname-of.js';
import { isAllowedHost } from '../../gateway/security/host-check.js';
import { loadConfig } from '../../cli/load-config.js';
import { UsageError } from '../../cli/usage-error.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { rawRequest } from '../gateway/hostile-input/raw-http.js';
import { expectErrorShape, type Protocol } from '../gateway/hostile-input/protocol-shapes.js';
import { storeFingerprint } from '../gateway/hostile-input/store-fingerprint.js';

const ADMIN_TOKEN = 'admin-token-for-host-tests-012345';
const MODEL = 'Qwen/Qwen3-8B';

function allowedBy(input: Parameters<typeof gatewayConfigSchema.parse>[0]): (header: string | undefined) => boolean {
  return isAllowedHost(gatewayConfigSchema.parse(input));
}

describe('hostnameOf', () => {
  it('reads a Host header: lowercased, without port, brackets or trailing dot; null when malformed', () => {
    expect(['LocalHost:4000', 'localhost', 'localhost.', 'localhost:'].map(hostnameOf)).toEqual(['localhost', 'localhost', 'localhost', 'localhost']);
    expect(['[::1]:4000', '[::1]', '::1', '10.0.0.5:80'].map(hostnameOf)).toEqual(['::1', '::1', '::1', '10.0.0.5']);
    expect(['[::1', '[evil]:1', 'a b', 'user@evil', 'evil/x', 'host:abc', 'host:123456', '', ':4000', 'a:b:c'].map(hostnameOf)).toEqual(
      Array(10).fill(null),
    );
  });
});

describe('which Host headers a gateway answers (DNS rebinding guard)', () => {
  it('bound to loopback: the loopback names and IP addresses with any port; no other name', () => {
    const allowed = allowedBy({});
    for (const host of ['localhost:4000', '127.0.0.1:1', '[::1]:4000', 'LOCALHOST', 'localhost.', '10.0.0.5:4000', '[fe80::1]:4000', undefined, ''])
      expect(allowed(host), String(host)).toBe(true);
    for (const host of ['evil.example', 'evil.example:4000', 'localhost.evil.example', '127.0.0.1.nip.io:4000', 'sub.localhost', 'a b', '[evil]'])
      expect(allowed(host), host).toBe(false);
  });

  it('takes the bound name, the public URL host and allowedHosts (a leading dot for subdomains); * takes any Host', () => {
    const allowed = allowedBy({
      host: 'gpu-node-3',
      publicUrl: 'https://tokentap.internal',
      allowedHosts: 'trainer.lab, .cluster.local,Tokentap-2:9000',
    });
    for (const host of ['gpu-node-3:4000', 'tokentap.internal', 'TRAINER.lab:4000', 'cluster.local', 'svc.ns.cluster.local:4000', 'tokentap-2:4000'])
      expect(allowed(host), host).toBe(true);
    for (const host of ['evilcluster.local', 'cluster.local.evil', 'gpu-node-4', 'trainer.lab.evil']) expect(allowed(host), host).toBe(false);
    expect(allowedBy({ host: '0.0.0.0' })('gpu-node-3:4000')).toBe(false);
    expect(allowedBy({ host: '0.0.0.0', allowedHosts: ['*'] })('anything.example:4000')).toBe(true);
  });

  it('reads allowedHosts from the flag and TOKENTAP_ALLOWED_HOSTS, and refuses an entry that is no host name at start', () => {
    expect(loadConfig({}, { TOKENTAP_ALLOWED_HOSTS: 'a.lab,.cluster.local' }).allowedHosts).toEqual(['a.lab', '.cluster.local']);
    expect(loadConfig({ 'allowed-hosts': '*' }, { TOKENTAP_ALLOWED_HOSTS: 'a.lab' }).allowedHosts).toEqual(['*']);
    expect(loadConfig({}, {}).allowedHosts).toEqual([]);
    expect(() => loadConfig({ 'allowed-hosts': 'http://a.lab/' }, {})).toThrow(UsageError);
    expect(() => loadConfig({ 'allowed-hosts': 'a b' }, {})).toThrow(/--allowed-hosts "a b": --allowed-hosts are host names or addresses/);
  });
});

describe('a request naming another Host is 421 in its protocol shape, before anything runs', () => {
  const routes: Array<[string, string, Protocol, Record<string, unknown> | undefined]> = [
    ['POST', '/v1/chat/completions', 'openai', { model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }],
    ['POST', '/s/rebind/v1/completions', 'openai', { model: MODEL, prompt: 'hi', max_tokens: 4 }],
    ['GET', '/v1/models', 'openai', undefined],
    ['POST', '/v1/messages', 'anthropic', { model: MODEL, max_tokens: 4, messages: [{ role: 'user', content: 'hi' }] }],
    ['POST', '/tokentap/v1/sessions', 'admin', {}],
    ['GET', '/healthz', 'openai', undefined],
    ['GET', '/no/such/route', 'openai', undefined],
  ];

  it('through app.inject on every kind of route; the same requests with Host localhost are served', async () => {
    const gateway = createGateway({ db: ':memory:', logLevel: 'silent', adminToken: ADMIN_TOKEN, backendUrl: 'http://127.0.0.1:9' });
    try {
      const before = storeFingerprint(gateway.store);
      for (const [method, url, protocol, body] of routes) {
        const response = await gateway.app.inject({
          method: method as 'GET',
          url,
          headers: {
            host: 'rebound.attacker.example:4000',
            authorization: `Bearer ${ADMIN_TOKEN}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(421);
        const answer = expectErrorShape(protocol, response.body, url) as { error: { message: string } };
        expect(answer.error.message).toMatch(/"rebound\.attacker\.example:4000" is not a name this gateway answers to.*--allowed-hosts/);
      }
      expect(storeFingerprint(gateway.store)).toBe(before);
      const healthz = await gateway.app.inject({ method: 'GET', url: '/healthz', headers: { host: 'localhost:4000' } });
      expect(healthz.statusCode).toBe(200);
      const session = await gateway.app.inject({
        method: 'POST',
        url: '/tokentap/v1/sessions',
        headers: { host: '[::1]:4000', authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(session.statusCode, session.body).toBe(201);
    } finally {
      await gateway.close();
    }
  });

  describe('on a real socket, as a DNS-rebinding page in a local browser sends it', () => {
    let setup: GatewayWithSim;
    beforeAll(async () => {
      setup = await startGatewayWithSim({ script: { replies: [{ times: 'forever', content: 'fine' }] } });
    });
    afterAll(async () => {
      await setup.close();
    });

    it("a keyless model call naming the attacker's Host is refused and never reaches the backend; by IP or localhost it is served", async () => {
      const port = new URL(setup.url).port;
      const body = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
      const send = (host: string): ReturnType<typeof rawRequest> =>
        rawRequest(
          setup.url,
          `POST /s/rebind/v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
          [Buffer.from(body)],
        );
      const before = storeFingerprint(setup.gateway.store);
      const generations = setup.sim.log.length;
      const refused = await send(`rebind.attacker.example:${port}`);
      expect(refused.status, refused.body).toBe(421);
      expectErrorShape('openai', refused.body);
      expect(storeFingerprint(setup.gateway.store)).toBe(before);
      expect(setup.gateway.store.listCalls('rebind')).toEqual([]);
      expect(setup.sim.log.length).toBe(generations);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
        const served = await send(host);
        expect(served.status, served.body).toBe(200);
      }
      expect(setup.gateway.store.listCalls('rebind').map((call) => call.status)).toEqual(['ok', 'ok']);
      expect(setup.sim.log.length).toBe(generations + 2);
    });
  });
});
