import type { ChatCallRenderer } from '../backends/chat-call-renderer.js';
import { ChatStreamAssembler } from '../backends/chat-stream-assembler.js';
import type { BackendFlavour, ReplicaLease } from '../backends/fleet/fleet-types.js';
import type { PreparedAttempt } from '../backends/post-with-retries.js';
import { adaptCallForSglang } from '../backends/sglang/adapt-call.js';
import type { StreamAssembler } from '../backends/stream-assembler.js';
import type { TokenFaithfulRoute } from '../token-faithful/create-token-faithful.js';

/** One attempt of a chat call, made for the flavour of the replica it goes to. */
export interface ChatAttempt extends PreparedAttempt {
  path: string;
  body: Record<string, unknown>;
  renderer: ChatCallRenderer;
  createAssembler: () => StreamAssembler;
  /** the backend is asked for a whole body that the gateway relays to the harness as a stream (SGLang chat: docs/backends.md) */
  wholeBodyAsStream: boolean;
}

/** The call as the front door built it (vLLM's shape), and token-faithful mode's routes when it rendered the prompt. */
export interface AttemptSource {
  path: string;
  body: Record<string, unknown>;
  stream: boolean;
  renderer: ChatCallRenderer;
  createAssembler?: (() => StreamAssembler) | undefined;
  /** token-faithful mode: the token-id request for each flavour */
  faithfulRoutes?: Record<BackendFlavour, TokenFaithfulRoute> | null | undefined;
}

/**
 * The request one replica is sent: token-faithful mode's route for its flavour when the prompt was rendered
 * (vLLM `/v1/completions`, SGLang `/generate`), else the front door's request, made right for SGLang on an SGLang
 * replica (adapt-call.ts).
 *
 * @example const attempt = prepareAttempt(source, lease)
 */
export function prepareAttempt(source: AttemptSource, lease: Pick<ReplicaLease, 'flavour' | 'capabilities'>): ChatAttempt {
  const route = source.faithfulRoutes?.[lease.flavour];
  if (route !== undefined) {
    return {
      path: route.backendPath,
      body: route.backendBody,
      renderer: route.renderer,
      createAssembler: () => route.createAssembler(lease.capabilities),
      wholeBodyAsStream: false,
    };
  }
  const call = {
    path: source.path,
    body: source.body,
    stream: source.stream,
    createAssembler: source.createAssembler ?? ((): StreamAssembler => new ChatStreamAssembler()),
  };
  const adapted = lease.flavour === 'sglang' ? adaptCallForSglang(call, lease.capabilities) : { ...call, wholeBodyAsStream: false };
  return { ...adapted, renderer: source.renderer };
}
