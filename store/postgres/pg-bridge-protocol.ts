/**
 * Messages between a PostgreSQL connection (pg-database.ts, on the thread that uses the store) and the worker thread
 * that holds its `pg` client (pg-host-worker.ts). The asking thread blocks on `signal` (Atomics.wait) until the worker
 * has posted its answer on `port` and set the signal, then reads the answer with receiveMessageOnPort.
 */
import type { MessagePort } from 'node:worker_threads';

/** Bumped whenever a message changes shape: a dist/ worker left from an older build is refused, not misread. */
export const PG_BRIDGE_PROTOCOL = 3;

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

export type ToPgHost =
  /** `prelude`: statements without parameters run first (deferred BEGIN / SAVEPOINT / RELEASE); null for none */
  | { kind: 'query'; name: string | null; text: string; values: unknown[]; rowMode: 'array' | null; prelude?: string | null }
  /** statements without parameters, as one simple query (migrations, BEGIN/COMMIT) */
  | { kind: 'exec'; text: string }
  | { kind: 'close' };

export interface PgWireError {
  message: string;
  /** SQLSTATE (`23505`) or Node's error code (`ECONNREFUSED`) */
  code: string | null;
  /** true when the connection itself failed (the next request opens a new one) */
  connectionLost: boolean;
}

/** Each request carries a number its answer echoes (`id`), so an answer can never be taken for another's. */
export type FromPgHost = ({ ok: true; rows: unknown[]; rowCount: number } | { ok: false; error: PgWireError }) & { id?: number };
