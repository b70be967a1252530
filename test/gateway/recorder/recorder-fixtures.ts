import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { recordWorkerUrl } from '../../../gateway/recorder/record-worker-url.js';
import { WorkerCallRecorder } from '../../../gateway/recorder/worker-call-recorder.js';
import type { RecordFailurePolicy } from '../../../gateway/recorder/recorder.js';

/** A logger whose lines are kept as objects, to assert what was logged. */
export function captureLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

/** The compiled worker: `npm test` builds first (pretest); a missing build fails here, loudly. */
export function compiledWorkerUrl(): URL {
  const url = recordWorkerUrl();
  if (url === null) throw new Error('no compiled recording worker under dist/: run npm run build');
  return url;
}

export function startWorkerRecorder(
  path: string,
  policy: RecordFailurePolicy = 'refuse',
  log: FastifyBaseLogger = captureLogger().logger,
): WorkerCallRecorder {
  return new WorkerCallRecorder({ path, policy, log, workerUrl: compiledWorkerUrl() });
}

/** Posts a chat completion with node:fetch; the body is read to the end. */
export async function postChat(
  base: string,
  session: string,
  options: { stream?: boolean; content?: string } = {},
): Promise<{ status: number; text: string; callId: string | null }> {
  const response = await fetch(`${base}/s/${session}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'Qwen/Qwen3-8B',
      stream: options.stream === true,
      max_tokens: 16,
      messages: [{ role: 'user', content: options.content ?? 'hello' }],
    }),
  });
  return { status: response.status, text: await response.text(), callId: response.headers.get('x-tokentap-call-id') };
}
