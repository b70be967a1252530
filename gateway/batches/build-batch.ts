import type { ExportSelection, ExportSummary } from '../../export/export-options.js';
import { createExportSummary, exportSamples, type ExportSource } from '../../export/export-samples.js';
import { uncountSample } from '../../export/export-summary.js';
import { readConversation } from '../../trainer-adapters/conversation/read-conversation.js';
import { isAdapterSkip, type TrainerAdapter } from '../../trainer-adapters/index.js';
import { toWireJson } from './to-wire-json.js';

/** What a pull answers besides its lease: the rows of its groups in the format, and what the export did. @example const { rows, summary }: BatchRows = buildBatch(store, groupIds, adapter, {}); */
export interface BatchRows {
  rows: unknown[];
  summary: ExportSummary;
}

/**
 * Turns leased groups into format rows, as `tokentap export` does for a file (group-contiguous, with advantages
 * and loss weights over each group's exported rollouts): a row is the adapter's JSON form (`toJson`) when it has
 * one, else the row itself, typed arrays as arrays. Samples the format cannot hold move from the summary's totals
 * to `dropped` under the adapter's reason.
 *
 * @example const { rows, summary } = buildBatch(store, ['task-1', 'task-2'], createTrainerAdapter('verl'), { filters: { split: 'train' } });
 */
export function buildBatch(store: ExportSource, groupIds: string[], adapter: TrainerAdapter, selection: ExportSelection): BatchRows {
  const summary = createExportSummary();
  const rows: unknown[] = [];
  for (const item of exportSamples(store, { ...selection, groupIds, adapter, summary, readConversation })) {
    const row = adapter.toRow(item);
    if (isAdapterSkip(row)) {
      uncountSample(summary, item.sample, row.skip);
      continue;
    }
    rows.push(toWireJson(adapter.toJson === undefined ? row : adapter.toJson(row)));
  }
  return { rows, summary };
}
