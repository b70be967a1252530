import type { SimFlavour } from '../../sim/index.js';

/**
 * The backend the real-agent suite runs against: `TOKENTAP_HARNESS_BACKEND=sglang` puts an SGLang-flavoured
 * simulator behind the gateway (configured as an SGLang replica, `backends: [{ flavour: 'sglang', url }]`), else
 * the vLLM flavour (CI runs the suite once with each). Anything else is a mistake, not a silent vLLM run.
 */
export const HARNESS_BACKEND: SimFlavour = readHarnessBackend(process.env.TOKENTAP_HARNESS_BACKEND);

/** The flavour as a describe suffix, so the two runs are told apart in the reports: `[vLLM]`, `[SGLang]`. */
export const HARNESS_BACKEND_LABEL = HARNESS_BACKEND === 'sglang' ? '[SGLang]' : '[vLLM]';

function readHarnessBackend(value: string | undefined): SimFlavour {
  if (value === undefined || value === '' || value === 'vllm') return 'vllm';
  if (value === 'sglang') return 'sglang';
  throw new Error(`TOKENTAP_HARNESS_BACKEND=${JSON.stringify(value)}: vllm (the default) or sglang`);
}
