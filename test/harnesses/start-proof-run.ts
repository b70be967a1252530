import type { SimScript } from '../../sim/index.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { HARNESS_BACKEND } from './harness-backend.js';

export interface ProofRun extends GatewayWithSim {
  /** the agent's working directory */
  workdir: ReturnType<typeof makeTempDir>;
  /** the agent's HOME */
  home: ReturnType<typeof makeTempDir>;
}

/**
 * The simulator (any model name accepted, so an agent's own names reach the script's `match.model`) with the
 * script, in the flavour `TOKENTAP_HARNESS_BACKEND` names (vLLM unless `sglang`, harness-backend.ts), the gateway
 * in front of it (both on port 0, temp database), and temp folders for the agent's work and HOME. `close()`
 * removes all of it.
 */
export async function startProofRun(script: SimScript): Promise<ProofRun> {
  const setup = await startGatewayWithSim({ script, acceptAnyModel: true, flavour: HARNESS_BACKEND });
  const workdir = makeTempDir('tokentap-harness-work-');
  const home = makeTempDir('tokentap-harness-home-');
  return {
    ...setup,
    workdir,
    home,
    async close() {
      await setup.close();
      workdir.remove();
      home.remove();
    },
  };
}
