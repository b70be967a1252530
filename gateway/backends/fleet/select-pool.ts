import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { servedModels, type FleetReplica } from './fleet-replica.js';

/** The replicas one call may go to, and the name its sessions and turns are kept under. */
export interface FleetPool {
  /** the model name (or '' for the fleet's single pool): session pins and round-robin turns are per pool */
  key: string;
  replicas: FleetReplica[];
}

/**
 * The pool of a call's model. A fleet whose replicas all serve the same models (or whose models are not known yet) is
 * one pool: every call goes there whatever model it names, and the backend answers an unknown name itself, as one
 * `--backend-url` always did. Otherwise the replicas serving `model` (null: the first model in config order); when
 * none does, the replicas whose models are still unknown (never listed: they answer 404 themselves); else
 * TokentapError TT_MODEL_NOT_FOUND (404) naming the models served.
 *
 * @example
 * const pool = selectPool(replicas, 'Qwen/Qwen3-8B'); // { key: 'Qwen/Qwen3-8B', replicas: [vllm-1, vllm-2] }
 */
export function selectPool(replicas: readonly FleetReplica[], model: string | null): FleetPool {
  const known = replicas.filter((replica) => replica.modelsKnown);
  const modelSets = new Set(known.map((replica) => [...servedModels(replica)].sort().join('\n')));
  if (modelSets.size <= 1) return { key: '', replicas: [...replicas] };
  const served = [...new Set(known.flatMap((replica) => servedModels(replica)))];
  // two model sets differ, so at least one is not empty
  const wanted = model ?? served[0]!;
  const serving = known.filter((replica) => servedModels(replica).includes(wanted));
  if (serving.length > 0) return { key: wanted, replicas: serving };
  const unknown = replicas.filter((replica) => !replica.modelsKnown);
  if (unknown.length > 0) return { key: wanted, replicas: unknown };
  throw new TokentapError('TT_MODEL_NOT_FOUND', {
    message: `The model '${wanted}' is not served by any backend (served: ${served.join(', ')})`,
    param: 'model',
  });
}
