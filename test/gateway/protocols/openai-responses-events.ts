import { expect } from 'vitest';

export type ResponsesEvent = Record<string, unknown> & { type: string; sequence_number: number };

/**
 * Parses a Responses SSE body and checks its framing: every event names its type in `event:` and in the data,
 * sequence numbers count up from 0, and the stream ends with a terminal event and no `[DONE]`.
 */
export function readResponsesEvents(text: string): ResponsesEvent[] {
  const blocks = text.split('\n\n').filter((block) => block.trim() !== '');
  const events = blocks.map((block) => {
    const lines = block.split('\n');
    const name = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
    const data = lines
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length))
      .join('\n');
    const event = JSON.parse(data) as ResponsesEvent;
    expect(event.type).toBe(name);
    return event;
  });
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  expect(['response.completed', 'response.incomplete', 'response.failed']).toContain(events.at(-1)?.type);
  return events;
}

/** POSTs a Responses body as JSON and returns the status, content type and text. */
export async function postResponses(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string; text: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** The `item` of every `response.output_item.done` event, in order. */
export function doneItems(events: ResponsesEvent[]): Array<Record<string, unknown>> {
  return events.filter((event) => event.type === 'response.output_item.done').map((event) => event.item as Record<string, unknown>);
}
