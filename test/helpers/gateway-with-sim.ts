import { createGateway, type Gateway, type GatewayOptions } from '../../gateway/create-gateway.js';
import { createSimBackend, type SimBackend, type SimBackendOptions } from '../../sim/index.js';
import { makeTempDir } from './temp-dir.js';

export interface GatewayWithSim {
  sim: SimBackend;
  simUrl: string;
  gateway: Gateway;
  /** the gateway's base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** an OpenAI base URL for a session: `${url}/s/${session}/v1` */
  openaiBase(session: string): string;
  close(): Promise<void>;
}

/** A simulated vLLM backend and a gateway in front of it, both on port 0, with a temp database. */
export async function startGatewayWithSim(simOptions: SimBackendOptions = {}, gatewayOptions: GatewayOptions = {}): Promise<GatewayWithSim> {
  const temp = makeTempDir();
  const sim = await createSimBackend({ acceptAnyModel: true, ...simOptions });
  const simUrl = await sim.listen();
  const gateway = createGateway({ backendUrl: simUrl, db: temp.file('tokentap.db'), port: 0, logLevel: 'silent', ...gatewayOptions });
  const url = await gateway.listen();
  return {
    sim,
    simUrl,
    gateway,
    url,
    openaiBase: (session) => `${url}/s/${session}/v1`,
    async close() {
      await gateway.close();
      await sim.close();
      temp.remove();
    },
  };
}
