import { readFileSync } from 'node:fs';
import { createSimBackend, type SimBackend, type SimBackendOptions } from '../../sim/index.js';

/** A listening simulator and its base URL; the test closes it. */
export interface RunningSim {
  sim: SimBackend;
  url: string;
}

export async function startSim(options: SimBackendOptions = {}): Promise<RunningSim> {
  const sim = await createSimBackend(options);
  const url = await sim.listen();
  return { sim, url };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` included). Events are split on blank lines. */
export function ssePayloads(body: string): string[] {
  return body
    .split('\n\n')
    .filter((event) => event.trim() !== '')
    .map((event) =>
      event
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n'),
    );
}

/** The JSON chunks of an SSE body, `[DONE]` left out (and asserted to be last by the callers that care). */
export function sseChunks(body: string): Array<Record<string, any>> {
  return ssePayloads(body)
    .filter((payload) => payload !== '[DONE]')
    .map((payload) => JSON.parse(payload) as Record<string, any>);
}

export interface AgentLightningCapture {
  request: { messages: Array<Record<string, unknown>>; model: string; stream: boolean; return_token_ids: boolean };
  response: any;
}

/** The model_request event of one agent-lightning archive line. */
export function readCapture(fileName: string): AgentLightningCapture {
  const line = readFileSync(new URL(`./fixtures/${fileName}`, import.meta.url), 'utf8').split('\n')[0] ?? '';
  const record = JSON.parse(line) as { events: Array<{ event_type: string; data: AgentLightningCapture }> };
  const event = record.events.find((entry) => entry.event_type === 'model_request');
  if (event === undefined) throw new Error(`no model_request in ${fileName}`);
  return event.data;
}

export const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
} as const;
