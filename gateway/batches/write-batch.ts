import type { FastifyReply } from 'fastify';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ExportProvenance } from '../../export/export-provenance.js';
import type { ExportSelection } from '../../export/export-options.js';
import { createExportSummary, type ExportSource } from '../../export/export-samples.js';
import type { TrainerAdapter } from '../../trainer-adapters/index.js';
import { writeWithBackpressure } from '../http/write-with-backpressure.js';
import { batchRows } from './build-batch.js';
import type { Lease } from './lease-pool.js';

export interface WriteBatchOptions {
  reply: FastifyReply;
  lease: Lease;
  store: ExportSource;
  adapter: TrainerAdapter;
  selection: ExportSelection;
  provenance: () => ExportProvenance;
}

/** Bytes written between two turns of the event loop, so one large pull does not hold every other request. */
const BYTES_PER_TURN = 1024 * 1024;

/**
 * Answers a pull with its batch as one JSON object written row by row (lease fields, `rows`, then `summary` and
 * `provenance`, which are known only at the end), waiting for the client to drain and letting other requests run
 * every megabyte, so a pull of many groups costs the gateway one row of memory, not the batch. An error before the
 * first byte is thrown for the error handler to answer; after it, the connection is cut (the client cannot parse a
 * half batch). Resolves false when the batch did not reach the client whole: its lease should be released.
 *
 * @example if (!(await writeBatch({ reply, lease, store, adapter, selection, provenance }))) pool.release(lease.batchId);
 */
export async function writeBatch(options: WriteBatchOptions): Promise<boolean> {
  const { reply, lease, adapter } = options;
  const summary = createExportSummary();
  const rows = batchRows(options.store, lease.groupIds, adapter, options.selection, summary);
  // the provenance and the first row are read before anything is sent, so a failure still gets a proper error answer
  const provenance = options.provenance();
  let next = rows.next();
  const head = {
    batchId: lease.batchId,
    consumer: lease.consumer,
    leaseExpiresAt: lease.expiresAt,
    format: adapter.format,
    shape: adapter.shape ?? null,
    groups: lease.groupIds,
  };
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  try {
    let text = `${JSON.stringify(head).slice(0, -1)},"rows":[`;
    let sinceTurn = 0;
    for (let first = true; next.done !== true; first = false, next = rows.next()) {
      text += first ? next.value : `,${next.value}`;
      if (text.length < 64 * 1024) continue;
      if (!(await writeWithBackpressure(raw, text))) return false;
      sinceTurn += text.length;
      text = '';
      if (sinceTurn >= BYTES_PER_TURN) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
    text += `],"summary":${JSON.stringify(summary)},"provenance":${JSON.stringify(provenance)}}`;
    if (!(await writeWithBackpressure(raw, text))) return false;
    raw.end();
    return true;
  } catch (error) {
    reply.log.error({ err: error, batchId: lease.batchId }, 'pull batch failed after its answer began: connection cut, lease released');
    raw.destroy();
    return false;
  }
}
