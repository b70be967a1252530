/**
 * The live updates: GET /ui/api/events read with fetch and a stream reader (EventSource cannot send the
 * Authorization header), reconnecting after a pause when the connection drops.
 */
import type { ViewerSummary } from '../../viewer-api.js';
import { SseDecoder } from '../logic/sse-decoder.js';
import { apiPath, authHeaders } from './api-client.js';

const RETRY_MS = [1000, 2000, 5000, 10_000, 30_000];

/** Calls `onChange` with the new summary on each `change`; returns the function that stops listening. */
export function subscribeToChanges(onChange: (summary: ViewerSummary) => void): () => void {
  const controller = new AbortController();
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = async (): Promise<void> => {
    try {
      const response = await fetch(apiPath('/events'), { headers: { accept: 'text/event-stream', ...authHeaders() }, signal: controller.signal });
      // no stream to read (401, or a server without the route): the pages still work, without live updates
      if (!response.ok || response.body === null) {
        if (response.status === 401 || response.status === 403 || response.status === 404) return;
        throw new Error(`events: ${response.status}`);
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const decoder = new SseDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        failures = 0;
        for (const event of decoder.push(value)) {
          if (event.event !== 'change') continue;
          try {
            onChange(JSON.parse(event.data) as ViewerSummary);
          } catch {
            // a malformed event changes nothing on screen
          }
        }
      }
    } catch {
      if (controller.signal.aborted) return;
    }
    if (controller.signal.aborted) return;
    timer = setTimeout(() => void connect(), RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
  };
  void connect();
  return () => {
    controller.abort();
    clearTimeout(timer);
  };
}
