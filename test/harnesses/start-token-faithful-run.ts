import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { createSimBackend, type SimBackend, type SimGenerationRecord, type SimScript } from '../../sim/index.js';
import { startGatewayWithSim } from '../helpers/gateway-with-sim.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { HARNESS_BACKEND } from './harness-backend.js';

/** The scripted answers of a token-faithful run: the main model's replies in order, and the small model's one reply. */
export interface TokenFaithfulScript {
  mainModel: string;
  /** the main model's completions (raw text), in the order the agent asks for them */
  main: string[];
  smallModel: string;
  /** the small model's answer to every side request */
  side: string;
}

export interface TokenFaithfulRun {
  gateway: Gateway;
  url: string;
  workdir: ReturnType<typeof makeTempDir>;
  home: ReturnType<typeof makeTempDir>;
  /** every generation the simulator(s) made for the agent, in arrival order per simulator */
  log(): SimGenerationRecord[];
  /** 0 for a side request (the small model), n for the main model's n-th scripted reply (from 1) */
  stepOf(record: SimGenerationRecord): number | null;
  close(): Promise<void>;
}

const GATEWAY_OPTIONS = {
  tokenFaithful: '*',
  // the gateway renders prompts itself (an SGLang replica has no chat-template endpoint to render with)
  modelDir: qwen3TokenizerDir(),
};

/**
 * The gateway in token-faithful mode in front of the simulator, in the flavour `TOKENTAP_HARNESS_BACKEND` names,
 * with temp folders for the agent's work (the script is written for it) and HOME. `close()` removes all of it.
 * A token-id prompt has no text to match on, so the script answers by model and order. vLLM's `/v1/completions`
 * carries the model name: one simulator takes both models. SGLang's `/generate` carries none (a server serves one
 * model), so on SGLang each model has its own replica, as an SGLang fleet serves a small model: the gateway routes
 * by the request's model to that replica's pool (`backends: [{ flavour: 'sglang', url, models }]`).
 */
export async function startTokenFaithfulRun(scriptFor: (workdir: string) => TokenFaithfulScript): Promise<TokenFaithfulRun> {
  const workdir = makeTempDir('tokentap-harness-work-');
  const home = makeTempDir('tokentap-harness-home-');
  const script = scriptFor(workdir.path);
  const folders = { workdir, home };
  const removeFolders = (): void => {
    workdir.remove();
    home.remove();
  };
  if (HARNESS_BACKEND === 'sglang') {
    const setup = await startSglangReplicaPerModel(script);
    return {
      ...setup,
      ...folders,
      async close() {
        await setup.close();
        removeFolders();
      },
    };
  }
  const setup = await startGatewayWithSim(
    {
      script: {
        replies: [
          { match: { model: script.smallModel }, times: 'forever', text: script.side },
          ...script.main.map((text) => ({ match: { model: script.mainModel }, text })),
        ],
        otherwise: 'error',
      },
      acceptAnyModel: true,
    },
    GATEWAY_OPTIONS,
  );
  return {
    gateway: setup.gateway,
    url: setup.url,
    ...folders,
    log: () => setup.sim.log,
    stepOf: (record) => record.scriptEntry,
    async close() {
      await setup.close();
      removeFolders();
    },
  };
}

/** One SGLang-flavoured simulator per model, each the gateway's replica for that model, with a temp database. */
async function startSglangReplicaPerModel(script: TokenFaithfulScript): Promise<Omit<TokenFaithfulRun, 'workdir' | 'home'>> {
  const temp = makeTempDir();
  const scripts: Record<'main' | 'small', SimScript> = {
    main: { replies: script.main.map((text) => ({ text })), otherwise: 'error' },
    small: { replies: [{ times: 'forever', text: script.side }], otherwise: 'error' },
  };
  const main = await createSimBackend({ flavour: 'sglang', modelName: script.mainModel, script: scripts.main });
  const small = await createSimBackend({ flavour: 'sglang', modelName: script.smallModel, script: scripts.small });
  const gateway = createGateway({
    backends: [
      { id: 'sglang-main', flavour: 'sglang', url: await main.listen(), models: [script.mainModel] },
      { id: 'sglang-small', flavour: 'sglang', url: await small.listen(), models: [script.smallModel] },
    ],
    db: temp.file('tokentap.db'),
    port: 0,
    logLevel: 'silent',
    ...GATEWAY_OPTIONS,
  });
  const url = await gateway.listen();
  // the start-up probe asked each replica for one token: no session's call, and it must not have used up an entry
  for (const [sim, simScript] of [
    [main, scripts.main],
    [small, scripts.small],
  ] as Array<[SimBackend, SimScript]>) {
    sim.log.splice(0, sim.log.length);
    sim.setScript(simScript);
  }
  return {
    gateway,
    url,
    log: () => [...main.log, ...small.log],
    stepOf: (record) => (small.log.includes(record) ? 0 : record.scriptEntry === null ? null : record.scriptEntry + 1),
    async close() {
      await gateway.close();
      await Promise.all([main.close(), small.close()]);
      temp.remove();
    },
  };
}
