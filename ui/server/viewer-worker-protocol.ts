/**
 * What the gateway's thread and the viewer's thread (viewer-worker.ts, started by viewer-thread.ts) say to each
 * other. The viewer's thread answers the viewer API's requests (ui/viewer-api.ts) on a read-only store of its own, so
 * a heavy page never holds the gateway's event loop (docs/viewer.md, "Costs").
 */

/** Bumped whenever a message changes: a gateway and a thread script from two builds refuse to talk. */
export const VIEWER_WORKER_PROTOCOL = 1;

export interface ViewerWorkerData {
  protocol: number;
  /** the gateway's database: a SQLite file or a postgres:// URL, opened read-only */
  db: string;
  /** the model folder whose tokenizer gives the token texts (`modelDir`) */
  modelDir?: string;
}

/** One API request, already let in by the gateway (authorization runs on its thread). */
export interface ViewerWorkerRequest {
  type: 'request';
  id: number;
  method: 'GET' | 'HEAD';
  /** the path under VIEWER_API_PREFIX with its query, as the harness sent it */
  url: string;
}

export type ToViewerWorker = ViewerWorkerRequest | { type: 'close' };

/** A request's answer, as the viewer's app sent it. */
export interface ViewerAnswer {
  statusCode: number;
  contentType: string | null;
  body: string;
}

export type FromViewerWorker =
  /** the store is open and the routes are ready; `tokenizerError` when the model folder's tokenizer would not load */
  | { type: 'ready'; tokenizerError: string | null }
  /** the store would not open: `code` is a TokentapError code when there is one (TT_STORE_UNAVAILABLE for a server away) */
  | { type: 'failed'; code: string | null; message: string }
  | ({ type: 'answer'; id: number } & ViewerAnswer)
  /** one line of the viewer app's log (pino JSON, warn and above) */
  | { type: 'log'; line: string };
