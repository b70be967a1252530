import type { BackendClient } from '../vllm.js';
import { answerMessage, probeRequest, type ProbeAnswer } from './probe-request.js';

/**
 * A health check: `GET /health` (vLLM answers 200 once its engine runs; SGLang's runs a one-token generation and
 * answers 503 while starting or shutting down). The failure in words, or null when healthy.
 *
 * @example const error = await checkReplicaHealth(client, AbortSignal.timeout(5000)); // null
 */
export async function checkReplicaHealth(client: BackendClient, signal: AbortSignal): Promise<string | null> {
  return healthError(await probeRequest(client, '/health', signal));
}

/** The failure of a `GET /health` answer in words, or null when it is 2xx. */
export function healthError(answer: ProbeAnswer): string | null {
  if (!answer.ok) return answer.error;
  if (answer.status >= 200 && answer.status < 300) return null;
  const message = answerMessage(answer);
  return `GET /health answered ${answer.status}${message === '' ? '' : `: ${message}`}`;
}
