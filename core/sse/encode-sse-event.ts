/**
 * Encodes one SSE event. A `data` value holding line breaks becomes several `data:` lines, so any text
 * round-trips through {@link SseDecoder}.
 *
 * @example
 * reply.raw.write(encodeSseEvent({ data: JSON.stringify(chunk) }));
 * reply.raw.write(encodeSseEvent({ event: 'message_stop', data: '{"type":"message_stop"}' }));
 */
export function encodeSseEvent(event: { event?: string | undefined; data: string }): string {
  const head = event.event === undefined ? '' : `event: ${event.event}\n`;
  const data =
    event.data.includes('\n') || event.data.includes('\r')
      ? event.data
          .split(/\r\n|\r|\n/)
          .map((line) => `data: ${line}`)
          .join('\n')
      : `data: ${event.data}`;
  return `${head}${data}\n\n`;
}
