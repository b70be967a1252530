import type { FastifyReply, FastifyRequest } from 'fastify';
import { tokenDecoder } from './decode-token.js';
import type { Generation } from './generate-completion.js';
import { responseId } from './request-basics.js';
import { appendRecord, isRecorded, type SimContext } from './sim-context.js';
import type { ResolvedSimFault } from './sim-fault.js';
import { emptyRecord, type SimGenerationRecord } from './sim-generation-record.js';
import { trackExchange } from './track-exchange.js';
import { VllmError } from './vllm-error.js';
import { writeEventStream, writeJsonBody, type StreamEvent } from './write-response.js';

/**
 * Runs a generation handler with its log record. A request that fails before it is recorded (validation,
 * context length, script errors) is still logged, with its status and error message; the error then goes
 * on to the app's error handler, which answers in the flavour's shape. `requestId` replaces the vLLM-style id (SGLang).
 *
 * @example
 * app.post('/v1/completions', (request, reply) => runWithRecord(context, request, 'completions', (record) => work(record)));
 */
export async function runWithRecord(
  context: SimContext,
  request: FastifyRequest,
  endpoint: SimGenerationRecord['endpoint'],
  work: (record: SimGenerationRecord) => Promise<void>,
  requestId?: string,
): Promise<void> {
  context.requestCount++;
  const stream = (request.body as { stream?: unknown } | undefined)?.stream === true;
  const prefix = endpoint === 'chat' ? 'chatcmpl' : 'cmpl';
  const record = emptyRecord({ requestId: requestId ?? responseId(prefix, request), endpoint, stream, model: context.modelName });
  try {
    await work(record);
  } catch (error) {
    if (!isRecorded(context, record)) {
      record.status = error instanceof VllmError ? error.status : 500;
      record.error = error instanceof Error ? error.message : String(error);
      appendRecord(context, record);
    }
    throw error;
  }
}

export interface GenerationResponse {
  stream: boolean;
  body(): Record<string, unknown>;
  events(): Iterable<StreamEvent>;
}

/**
 * Logs the finished record (before anything is serialized), then writes the answer, paced and with the
 * decided fault acted out.
 *
 * @example
 * await respondWithGeneration(context, record, reply, fault, generation, { stream, body, events });
 */
export async function respondWithGeneration(
  context: SimContext,
  record: SimGenerationRecord,
  reply: FastifyReply,
  fault: ResolvedSimFault | null,
  generation: Generation,
  response: GenerationResponse,
): Promise<void> {
  record.status = 200;
  appendRecord(context, record);
  const exchange = trackExchange(context, record, reply);
  const options = { intervalMs: context.tokenIntervalMs, fault };
  if (response.stream) {
    await writeEventStream(exchange, response.events(), options);
    return;
  }
  const delayMs = context.tokenIntervalMs * generation.plan.tokenIds.length;
  await writeJsonBody(exchange, JSON.stringify(response.body()), { delayMs, fault });
}

const decoders = new WeakMap<SimContext, { withTokenizer: boolean; decode: (id: number) => string }>();

/**
 * The context's token decoder for logprobs, rebuilt once the tokenizer has loaded.
 *
 * @example
 * decodeTokenFor(context)(151645); // '<|im_end|>'
 */
export function decodeTokenFor(context: SimContext): (id: number) => string {
  const tokenizer = context.loadedTokenizer();
  let entry = decoders.get(context);
  if (entry === undefined || (tokenizer !== null && !entry.withTokenizer)) {
    entry = { withTokenizer: tokenizer !== null, decode: tokenDecoder(tokenizer) };
    decoders.set(context, entry);
  }
  return entry.decode;
}
