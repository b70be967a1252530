import type { CallFlag, CallStatus, Store } from '../../store/index.js';

export interface RawCall {
  prompt: number[] | Int32Array | null;
  completion: number[] | Int32Array | null;
  /** default: a distinct negative float per id */
  logprobs?: number[] | Float32Array | null;
  status?: Exclude<CallStatus, 'in_progress' | 'incomplete'>;
  finishReason?: string | null;
  flags?: CallFlag[];
  tokenSource?: 'backend' | 'none';
  policyVersion?: string | null;
  /** chat messages of the request (backend body); omitted: a `/v1/completions`-like body without messages */
  messages?: unknown[];
  tools?: unknown[];
  /** the reply message of the response body */
  reply?: Record<string, unknown>;
}

/** Writes one finished call through the store API, as the gateway's recorder would, and returns its id. */
export function recordRawCall(store: Store, sessionId: string, call: RawCall): string {
  const body =
    call.messages === undefined
      ? { model: 'm', prompt: 'raw' }
      : { model: 'm', messages: call.messages, ...(call.tools === undefined ? {} : { tools: call.tools }) };
  const { callId } = store.beginCall({
    sessionId,
    frontDoor: 'openai-chat',
    path: '/v1/chat/completions',
    requestedModel: 'm',
    backendModel: 'm',
    stream: false,
    requestBody: body,
    backendRequestBody: body,
    samplingParams: {},
    metadata: {},
    startedAt: Date.now(),
    policyVersion: call.policyVersion ?? null,
  });
  const completion = call.completion;
  const logprobs =
    call.logprobs !== undefined
      ? call.logprobs
      : completion === null
        ? null
        : Array.from(completion, (_, index) => -0.125 * (index + 1) - 0.0001 * (completion[0] ?? 0));
  store.finishCall(callId, {
    status: call.status ?? 'ok',
    tokenSource: call.tokenSource ?? 'backend',
    promptTokenIds: call.prompt,
    completionTokenIds: completion,
    completionLogprobs: logprobs,
    finishReason: call.finishReason === undefined ? 'stop' : call.finishReason,
    stopReason: null,
    responseBody: {
      choices: [{ index: 0, message: call.reply ?? { role: 'assistant', content: 'reply' }, finish_reason: call.finishReason ?? 'stop' }],
    },
    usage: null,
    error: null,
    httpStatus: 200,
    flags: call.flags ?? [],
    timeToFirstTokenMs: 1,
    totalMs: 2,
    endedAt: Date.now(),
  });
  return callId;
}
