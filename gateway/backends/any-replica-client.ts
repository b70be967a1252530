import { isRecord } from '../../core/json/is-record.js';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { BackendFleet } from './fleet/fleet-types.js';
import type { BackendClient, BackendResponse } from './vllm.js';

/**
 * A BackendClient over the whole fleet for requests that belong to no session and generate nothing (vLLM's
 * `/tokenize` for token-faithful rendering and Anthropic's count_tokens): each goes to the least busy replica of
 * the pool serving the body's `model`, counted in its in-flight calls until the answer's headers came.
 *
 * @example const tokenizer = anyReplicaClient(fleet); await tokenizer.postJson('/tokenize', { model, messages }, signal)
 */
export function anyReplicaClient(fleet: BackendFleet): BackendClient {
  async function send(model: string | null, request: (client: BackendClient) => Promise<BackendResponse>): Promise<BackendResponse> {
    const lease = fleet.pick({ model, sessionId: null, exclude: new Set() });
    try {
      const response = await request(lease.client);
      lease.release({ ok: true });
      return response;
    } catch (error) {
      lease.release({ ok: false, code: error instanceof TokentapError ? error.code : 'TT_BACKEND_UNREACHABLE' });
      throw error;
    }
  }
  return {
    get url() {
      return fleet.snapshot()[0]?.url ?? '';
    },
    postJson: (path, body, signal) =>
      send(isRecord(body) && typeof body.model === 'string' ? body.model : null, (client) => client.postJson(path, body, signal)),
    get: (path, signal) => send(null, (client) => client.get(path, signal)),
    // the fleet closes the replicas' connections
    close: async () => undefined,
  };
}
