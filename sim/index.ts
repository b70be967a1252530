// The simulated vLLM (or SGLang) backend: its whole public surface, the package's subpath export `tokentap/sim`.
export { createSimBackend, type SimBackend, type SimEventName } from './create-sim-backend.js';
export { runSimBackend } from './cli.js';
export type { SimBackendOptions, ReasoningField, SimFlavour } from './sim-options.js';
export { DEFAULT_MODEL_NAME, DEFAULT_MAX_MODEL_LEN } from './sim-options.js';
export { parseSimScript, simScriptSchema, type SimScript, type SimScriptEntry, type RequestFacts } from './sim-script.js';
export { simFaultSchema, type SimFault, type ResolvedSimFault, type SimFaultKind } from './sim-fault.js';
export type { SimGenerationRecord } from './sim-generation-record.js';
export type { ErrorShape } from './vllm-error.js';
