import type { ReplicaCapabilities } from '../fleet/fleet-types.js';
import type { StreamAssembler } from '../stream-assembler.js';

/** One backend request as the front doors build it for vLLM (vllm-chat-request.ts, vllm-completion-request.ts). */
export interface BackendCall {
  path: string;
  body: Record<string, unknown>;
  stream: boolean;
  createAssembler: () => StreamAssembler;
}

/** The same call made right for one replica. */
export interface AdaptedBackendCall extends BackendCall {
  /**
   * the harness asked for a stream, the backend is asked for a whole body: relay it through `streamFromWholeBody`
   * (stream-from-whole-body.ts) and mark the call `metadata.streamFromWholeBody: true`
   */
  wholeBodyAsStream: boolean;
}

/** The call metadata key that says a streamed call was answered from a whole body (docs/backends.md). */
export const STREAM_FROM_WHOLE_BODY_KEY = 'streamFromWholeBody';

/**
 * A plain-mode call for an SGLang replica (docs/backends.md). SGLang's OpenAI endpoints read the vLLM-shaped body as
 * it is (fields they do not know are ignored: pydantic's default), with one exception: a streamed chat request that
 * asks `return_token_ids` is refused with a 400 (serving_chat.py `_convert_to_internal_request`: "return_token_ids is
 * not supported with streaming on /v1/chat/completions"). Such a call is sent non-streamed, where SGLang returns
 * per-choice `prompt_token_ids` and `token_ids`, and relayed to the harness as a stream (`wholeBodyAsStream`). A
 * replica whose probe found it returns no token ids (an SGLang before PR #30917) keeps the stream, without the field.
 * `/v1/completions` takes `return_token_ids` streamed or not; any other path goes as it is.
 *
 * @example const call = adaptCallForSglang({ path: '/v1/chat/completions', body, stream: true, createAssembler }, lease.capabilities)
 */
export function adaptCallForSglang(call: BackendCall, capabilities: ReplicaCapabilities): AdaptedBackendCall {
  if (call.path !== '/v1/chat/completions' || !call.stream || call.body.return_token_ids !== true) {
    return { ...call, wholeBodyAsStream: false };
  }
  const body: Record<string, unknown> = { ...call.body };
  if (capabilities.returnsTokenIds === false) {
    delete body.return_token_ids;
    return { ...call, body, wholeBodyAsStream: false };
  }
  body.stream = false;
  // usage comes with every whole body; stream_options means nothing without a stream
  delete body.stream_options;
  return { ...call, body, stream: false, wholeBodyAsStream: true };
}
