/**
 * The recording worker's entry (a worker_threads script, started by worker-call-recorder.ts): it owns the store's
 * writing connection, its prompt-delta sequence cache included, and does the hashing, compression and SQLite work
 * of recording on its own core. Writes arriving in one turn of its event loop share one transaction.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../store/open-store.js';
import { BatchWriter, type RecorderWrite } from './batch-writer.js';
import {
  RECORD_WORKER_PROTOCOL,
  toWireError,
  type FromRecordWorker,
  type RecordWorkerData,
  type ToRecordWorker,
  type WireError,
} from './record-worker-protocol.js';

/** How long answers for `in_progress` rows alone may wait for a finish to travel with. */
const BEGIN_ANSWER_DELAY_MS = 50;

const port = parentPort;
const data = workerData as RecordWorkerData;
if (port === null) throw new Error('record-worker.js runs as a worker thread (worker-call-recorder.ts starts it)');
if (data.protocol !== RECORD_WORKER_PROTOCOL) {
  throw new Error(`the recording worker speaks protocol ${RECORD_WORKER_PROTOCOL}, the gateway ${data.protocol}: rebuild (npm run build)`);
}

const store = openStore({
  path: data.path,
  ...(data.maxBytes === undefined ? {} : { maxBytes: data.maxBytes }),
  ...(data.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: data.queryTimeoutMs }),
});
const writer = new BatchWriter(store, (report) => port.postMessage({ type: 'ends', ...report } satisfies FromRecordWorker));
let queue: RecorderWrite[] = [];
let flushScheduled = false;
/** answers not sent yet: a batch of `in_progress` rows only is answered with the next finish, or after a moment */
let unsent: Array<WireError | null> = [];
let unsentBatches = 0;
let answerTimer: NodeJS.Timeout | null = null;

function answer(): void {
  if (answerTimer !== null) clearTimeout(answerTimer);
  answerTimer = null;
  if (unsent.length === 0) return;
  const message: FromRecordWorker = { type: 'settled', batchesCommitted: unsentBatches, errors: unsent };
  unsent = [];
  unsentBatches = 0;
  port!.postMessage(message);
}

function flush(): void {
  flushScheduled = false;
  const writes = queue;
  queue = [];
  if (writes.length === 0) return;
  const { committed, errors } = writer.write(writes);
  if (committed) unsentBatches++;
  for (const error of errors) unsent.push(error === undefined ? null : toWireError(error));
  // someone waits on a finish (its last byte is held until it commits): answer now. Begins alone wait, to spare
  // the gateway's thread a wake-up per call; their answers only feed counters and the failure log.
  if (writes.some((write) => write.kind === 'finish')) answer();
  else answerTimer ??= setTimeout(answer, BEGIN_ANSWER_DELAY_MS);
}

port.on('message', (message: ToRecordWorker) => {
  if (message.type === 'writes') {
    for (const write of message.writes) queue.push(write);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
    return;
  }
  if (message.type === 'orphaned-ends') {
    writer.markIncompleteLater(message.callIds);
    return;
  }
  if (message.type === 'close') {
    flush();
    writer.close(); // reports the ends left unwritten before the answers the gateway waits on
    answer();
    store.close();
    port!.close(); // nothing else holds the event loop: the thread exits with code 0
    return;
  }
  throw new Error(`the recording worker got an unknown message: ${JSON.stringify(message)}`);
});

port.postMessage({ type: 'ready' } satisfies FromRecordWorker);
