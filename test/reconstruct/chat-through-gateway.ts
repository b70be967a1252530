/** The assistant message a harness reads back from one chat call. */
export interface AssistantMessage {
  content: string | null;
  reasoning?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
}

/**
 * Sends one chat request through the gateway as a harness would (fetch, JSON or SSE) and returns the reply
 * message; streamed replies are assembled from their deltas (content, reasoning, tool-call pieces).
 */
export async function chatThroughGateway(baseUrl: string, body: Record<string, unknown>, stream: boolean): Promise<AssistantMessage> {
  return (await recordedChat(baseUrl, body, stream)).message;
}

/** `chatThroughGateway`, also returning the id the gateway recorded the call under; `headers` e.g. a session key. */
export async function recordedChat(
  baseUrl: string,
  body: Record<string, unknown>,
  stream: boolean,
  headers: Record<string, string> = {},
): Promise<{ message: AssistantMessage; callId: string }> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'Qwen/Qwen3-8B', ...body, stream }),
  });
  if (response.status !== 200) throw new Error(`chat call failed: ${response.status} ${await response.text()}`);
  const callId = response.headers.get('x-tokentap-call-id') ?? '';
  if (!stream) return { message: ((await response.json()) as { choices: Array<{ message: AssistantMessage }> }).choices[0]!.message, callId };
  const message: AssistantMessage = { content: null };
  const calls: NonNullable<AssistantMessage['tool_calls']> = [];
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const delta = (JSON.parse(line.slice(6)) as { choices: Array<{ delta?: Record<string, any> }> }).choices[0]?.delta ?? {};
    if (typeof delta.content === 'string') message.content = (message.content ?? '') + delta.content;
    if (typeof delta.reasoning === 'string') message.reasoning = (message.reasoning ?? '') + delta.reasoning;
    for (const piece of delta.tool_calls ?? []) {
      const call = (calls[piece.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name = piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  return { message, callId };
}
