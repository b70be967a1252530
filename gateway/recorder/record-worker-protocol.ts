import { isInt32 } from '../../core/token-ids/is-int32-token-id.js';
import type { FinishCallInput } from '../../store/types.js';
import type { RecorderWrite } from './batch-writer.js';
import type { EndsReport } from './end-retries.js';

/**
 * Messages between the gateway's thread (worker-call-recorder.ts) and the recording worker (record-worker.ts).
 * Both sides check the version: under vitest the gateway runs from TypeScript sources while the worker runs
 * from dist/, and a stale build must fail loudly, not write half-understood messages. Version 4: begins and finishes
 * carry `backendId`, finishes `weightVersion` (schema 6), which a version-3 worker would silently drop. Version 5: the
 * data carries `queryTimeoutMs`. Version 6: `orphaned-ends`.
 */
export const RECORD_WORKER_PROTOCOL = 6;

export interface RecordWorkerData {
  protocol: number;
  /** the database file the worker opens (the gateway has already migrated it) */
  path: string;
  /** the database's size cap in bytes (config `dbMaxBytes`), for the worker's writing connection */
  maxBytes?: number | undefined;
  /** PostgreSQL: how long one statement may go unanswered (config `dbQueryTimeoutMs`) */
  queryTimeoutMs?: number | undefined;
}

/**
 * Gateway -> worker. Writes are applied in the order they are sent. `orphaned-ends` names calls whose end the thread
 * before this one may have held when it died: each still in progress is marked incomplete once a write goes through.
 */
export type ToRecordWorker = { type: 'writes'; writes: RecorderWrite[] } | { type: 'orphaned-ends'; callIds: string[] } | { type: 'close' };

/**
 * Worker -> gateway. `settled` answers the oldest writes not answered yet, in order: one entry per write, null
 * when it was written, and how many transactions committed them. `ends` reports the retries of refused ends
 * (end-retries.ts), whenever the number waiting changes. After `close` the worker answers everything, reports the
 * ends it could not write, closes the store and exits with code 0.
 */
export type FromRecordWorker =
  { type: 'ready' } | { type: 'settled'; batchesCommitted: number; errors: Array<WireError | null> } | ({ type: 'ends' } & EndsReport);

/** An error as it crosses threads (its class does not survive a structured clone). */
export interface WireError {
  name: string;
  message: string;
  code?: string;
  stack?: string;
}

export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.stack === undefined ? {} : { stack: error.stack }),
  };
}

export function fromWireError(wire: WireError): Error {
  const error = new Error(wire.message);
  error.name = wire.name;
  if (wire.stack !== undefined) error.stack = wire.stack;
  if (wire.code !== undefined) Object.assign(error, { code: wire.code });
  return error;
}

/**
 * Makes a finish cheap to hand over: token ids and logprobs become typed arrays whose buffers are transferred,
 * not cloned element by element (a 50,000-id prompt: ~0.8 ms cloned as a list on a slow core, ~0.2 ms copied
 * into an Int32Array). Ids an Int32 cannot hold exactly stay a list, so the store refuses them as it would on
 * this thread. Arrays the caller passed as typed arrays are cloned, never transferred out from under it.
 *
 * @example const { result, transfer } = toTransferableFinish(finish); port.postMessage(result, transfer)
 */
export function toTransferableFinish(result: FinishCallInput): { result: FinishCallInput; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const ids = (values: FinishCallInput['promptTokenIds']): FinishCallInput['promptTokenIds'] => {
    if (!Array.isArray(values)) return values;
    const packed = toInt32ArrayIfExact(values);
    if (packed === null) return values;
    transfer.push(packed.buffer as ArrayBuffer);
    return packed;
  };
  const logprobs = result.completionLogprobs;
  let packedLogprobs: FinishCallInput['completionLogprobs'] = logprobs;
  if (Array.isArray(logprobs)) {
    // the store keeps Float32 anyway (pack-tokens.ts toLogprobArray): the same bits either way
    const floats = Float32Array.from(logprobs);
    transfer.push(floats.buffer as ArrayBuffer);
    packedLogprobs = floats;
  }
  return {
    result: {
      ...result,
      promptTokenIds: ids(result.promptTokenIds),
      completionTokenIds: ids(result.completionTokenIds),
      completionLogprobs: packedLogprobs,
    },
    transfer,
  };
}

function toInt32ArrayIfExact(values: readonly number[]): Int32Array | null {
  const packed = new Int32Array(values.length);
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (!isInt32(value)) return null;
    packed[index] = value;
  }
  return packed;
}
