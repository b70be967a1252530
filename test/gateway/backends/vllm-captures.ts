import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Real vLLM captures copied from shared/fixtures/vllm-captures (see SOURCES.md there for provenance). */
export const CAPTURES_DIR = fileURLToPath(new URL('../../fixtures/vllm-captures/', import.meta.url));

export function readCapture(name: string): string {
  return readFileSync(CAPTURES_DIR + name, 'utf8');
}

/** The Agent Lightning archive: the request and the 201 streamed chunks exactly as vLLM sent them. */
export function agentLightningStream(): { request: Record<string, unknown>; chunks: Array<Record<string, unknown>> } {
  const record = JSON.parse(readCapture('vllm-chat-stream-tokenids-qwen25-agentlightning-archive.jsonl').split('\n')[0] ?? '') as {
    events: Array<{ event_type: string; data: { request: Record<string, unknown>; response: Array<Record<string, unknown>> } }>;
  };
  const event = record.events.find((entry) => entry.event_type === 'model_request');
  if (event === undefined) throw new Error('capture has no model_request');
  return { request: event.data.request, chunks: event.data.response };
}

/** `data:` payloads of an SSE capture, comments skipped. */
export function sseDataLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));
}
