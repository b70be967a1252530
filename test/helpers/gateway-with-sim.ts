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

/**
 * A simulated backend and a gateway in front of it, both on port 0, with a temp database. The simulator is vLLM
 * unless `simOptions.flavour` says `'sglang'`; the gateway then has it as its one SGLang replica
 * (`backends: [{ flavour: 'sglang', url }]`), as `--backend sglang=URL` would.
 */
export async function startGatewayWithSim(simOptions: SimBackendOptions = {}, gatewayOptions: GatewayOptions = {}): Promise<GatewayWithSim> {
  const temp = makeTempDir();
  const sim = await createSimBackend({ acceptAnyModel: true, ...simOptions });
  const simUrl = await sim.listen();
  const backend: GatewayOptions = simOptions.flavour === 'sglang' ? { backends: [{ flavour: 'sglang', url: simUrl }] } : { backendUrl: simUrl };
  const gateway = createGateway({ ...backend, db: temp.file('tokentap.db'), port: 0, logLevel: 'silent', ...gatewayOptions });
  const url = await gateway.listen();
  // the start-up probe asks an SGLang replica for one token (probe-token-ids.ts): that answer is no session's call,
  // so it is dropped from the log, and the script starts over (the probe must not have used up an entry)
  sim.log.splice(0, sim.log.length);
  if (simOptions.script !== undefined) sim.setScript(simOptions.script);
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
