/**
 * The viewer's thread (a worker_threads script, started by viewer-thread.ts on `serve --ui`): the viewer's app
 * (createViewerApp) over a read-only store of its own on the gateway's database, answering the requests the gateway
 * passes on. Its reads (reconstructions, verifications, scans) take this thread's time, not the gateway's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ERROR_CODES } from '../../core/errors/error-codes.js';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { storeUnavailable } from '../../store/store-failure-kinds.js';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/types.js';
import { createViewerApp } from './create-viewer-app.js';
import { loadViewerTokenizer } from './load-viewer-tokenizer.js';
import { VIEWER_WORKER_PROTOCOL, type FromViewerWorker, type ToViewerWorker, type ViewerWorkerData } from './viewer-worker-protocol.js';

const port = parentPort;
const data = workerData as ViewerWorkerData;
if (port === null) throw new Error('viewer-worker.js runs as a worker thread (viewer-thread.ts starts it)');
if (data.protocol !== VIEWER_WORKER_PROTOCOL) {
  throw new Error(`the viewer's thread speaks protocol ${VIEWER_WORKER_PROTOCOL}, the gateway ${data.protocol}: rebuild (npm run build)`);
}
const send = (message: FromViewerWorker): void => port.postMessage(message);

let store: Store;
try {
  store = openStore({ path: data.db, readonly: true });
} catch (error) {
  const failure = storeUnavailable(error) ?? error;
  send({ type: 'failed', code: isTokentapError(failure) ? failure.code : null, message: (failure as Error).message });
  port.close();
  process.exit(0);
}

let tokenizerError: string | null = null;
const tokenizer =
  data.modelDir === undefined
    ? undefined
    : await loadViewerTokenizer(data.modelDir, (error) => {
        tokenizerError = error.message;
      });

const app = createViewerApp({
  store,
  storeLocation: data.db,
  live: true,
  ...(tokenizer === undefined ? {} : { tokenizer }),
  // the gateway's logger writes what the app logs (its 500s), redacted as every gateway log line
  logger: { level: 'warn', stream: { write: (line: string) => send({ type: 'log', line }) } },
});
await app.ready();

port.on('message', (message: ToViewerWorker) => {
  if (message.type === 'close') {
    void app.close().finally(() => {
      store.close();
      port.close();
    });
    return;
  }
  void app.inject({ method: message.method, url: message.url }).then(
    (response) => {
      const contentType = response.headers['content-type'];
      send({
        type: 'answer',
        id: message.id,
        statusCode: response.statusCode,
        contentType: typeof contentType === 'string' ? contentType : null,
        body: response.body,
      });
    },
    (error: unknown) => {
      app.log.error({ err: error }, 'viewer request failed on its thread');
      send({
        type: 'answer',
        id: message.id,
        statusCode: 500,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ error: { code: 'TT_INTERNAL', message: ERROR_CODES.TT_INTERNAL.message } }),
      });
    },
  );
});
send({ type: 'ready', tokenizerError });
