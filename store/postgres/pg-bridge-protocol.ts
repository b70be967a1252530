/**
 * Messages between a PostgreSQL connection (pg-database.ts, on the thread that uses the store) and the worker thread
 * that holds its `pg` client (pg-host-worker.ts). The asking thread blocks on `signal` (Atomics.wait) until the worker
 * has posted its answer on `port` and set the signal, then reads the answer with receiveMessageOnPort. One request
 * carries several statements (the writes and transaction statements queued before the one waited for), which the
 * worker sends back to back on its client (pipelined) and answers together.
 */
import type { MessagePort } from 'node:worker_threads';

/**
 * How long a request waits for a reconnection (pg-host-worker.ts `connected`) before it fails and the attempt goes on
 * alone: a connection to a server that answers takes milliseconds; one to a server gone silent takes the connect timeout.
 */
export const PG_RECONNECT_WAIT_MS = 250;

/** Bumped whenever a message changes shape: a dist/ worker left from an older build is refused, not misread. */
export const PG_BRIDGE_PROTOCOL = 4;

export interface PgHostData {
  protocol: number;
  connectionString: string;
  /** Int32Array over a SharedArrayBuffer of one element: 0 while a request is pending, 1 once answered */
  signal: Int32Array;
  port: MessagePort;
  /** the client's own timeout of one query (ms): a database that stopped answering fails the call, never hangs it */
  queryTimeoutMs: number;
  connectTimeoutMs: number;
  applicationName: string;
  readonly: boolean;
}

export type PgStep =
  | { kind: 'query'; name: string | null; text: string; values: unknown[]; rowMode: 'array' | null }
  /** statements without parameters, as one simple query (migrations, BEGIN/COMMIT) */
  | { kind: 'exec'; text: string };

/**
 * `steps` run in order on one connection, each answered (a failed one does not stop those after it from being sent).
 * `continues`: they belong to a transaction an earlier request began, so they may run only on the connection that
 * began it; if that one was lost, they fail as lost instead of running outside any transaction on a new one.
 */
export type ToPgHost = { kind: 'steps'; steps: PgStep[]; continues: boolean } | { kind: 'close' };

export interface PgWireError {
  message: string;
  /** SQLSTATE (`23505`) or Node's error code (`ECONNREFUSED`) */
  code: string | null;
  /** true when the connection itself failed (the next request opens a new one) */
  connectionLost: boolean;
}

export type PgOutcome = { ok: true; rows: unknown[]; rowCount: number } | { ok: false; error: PgWireError };

/** One outcome per step, in order. Each request carries a number its answer echoes (`id`), so an answer can never be taken for another's. */
export interface FromPgHost {
  outcomes: PgOutcome[];
  id?: number;
}
