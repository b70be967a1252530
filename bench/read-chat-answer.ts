/** What an OpenAI client got from one Chat Completions call, streamed or not. */
export interface ChatAnswer {
  stream: boolean;
  /** the response `id` (chatcmpl-…): the backend's, so it names the simulator's generation record */
  responseId: string;
  content: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string | null;
  /** the whole JSON body of a non-streamed answer */
  body: Record<string, unknown> | null;
}

type ChunkChoice = {
  delta?: { content?: string | null; tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }> };
  finish_reason?: string | null;
};
type MessageChoice = {
  message?: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
  finish_reason?: string | null;
};

/**
 * Reads a 200 answer in full, as a client that wants the whole answer does. A stream counts as received in full
 * once its `data: [DONE]` arrived (an OpenAI client stops reading there, whatever the connection does next); then
 * `onLastByte` is called at once, before anything else is read or parsed. Returns null when the answer did not arrive
 * in full: a stream that broke or ended before `data: [DONE]`, an error event, a body cut short.
 *
 * @example const answer = await readChatAnswer(response, true); // null: the gateway died mid-stream
 */
export async function readChatAnswer(response: Response, stream: boolean, onLastByte: () => void = () => undefined): Promise<ChatAnswer | null> {
  const reader = response.body?.getReader();
  if (reader === undefined) return null;
  const decoder = new TextDecoder();
  let text = '';
  let complete = false;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
      if (stream && !complete && text.endsWith('data: [DONE]\n\n')) {
        complete = true;
        onLastByte();
      }
    }
    complete = true;
  } catch {
    // the connection broke: a stream is still whole if its [DONE] came first
  }
  if (!complete) return null;
  if (!stream) onLastByte();
  return stream ? parseStream(text) : parseBody(text);
}

function parseBody(text: string): ChatAnswer | null {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const choice = (body.choices as MessageChoice[] | undefined)?.[0];
  if (typeof body.id !== 'string' || choice === undefined) return null;
  return {
    stream: false,
    responseId: body.id,
    content: choice.message?.content ?? '',
    toolCalls: (choice.message?.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    finishReason: choice.finish_reason ?? null,
    body,
  };
}

function parseStream(text: string): ChatAnswer | null {
  const events = text
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event !== '');
  if (events.at(-1) !== 'data: [DONE]') return null;
  let responseId: string | null = null;
  let content = '';
  let finishReason: string | null = null;
  const toolCalls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const event of events.slice(0, -1)) {
    if (!event.startsWith('data: ')) return null;
    const chunk = JSON.parse(event.slice('data: '.length)) as { id?: string; choices?: ChunkChoice[]; error?: unknown };
    if (chunk.error !== undefined) return null; // an error event: the answer did not complete
    responseId ??= chunk.id ?? null;
    const choice = chunk.choices?.[0];
    content += choice?.delta?.content ?? '';
    for (const delta of choice?.delta?.tool_calls ?? []) {
      const call = (toolCalls[delta.index] ??= { id: '', name: '', arguments: '' });
      call.id += delta.id ?? '';
      call.name += delta.function?.name ?? '';
      call.arguments += delta.function?.arguments ?? '';
    }
    finishReason = choice?.finish_reason ?? finishReason;
  }
  if (responseId === null) return null;
  return { stream: true, responseId, content, toolCalls, finishReason, body: null };
}
