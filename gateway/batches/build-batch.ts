import type { ExportSelection, ExportSummary } from '../../export/export-options.js';
import { exportSamples, type ExportSource } from '../../export/export-samples.js';
import { uncountSample } from '../../export/export-summary.js';
import { readConversation } from '../../trainer-adapters/conversation/read-conversation.js';
import { isAdapterSkip, type TrainerAdapter } from '../../trainer-adapters/index.js';
import { toWireJson } from './to-wire-json.js';

/**
 * The rows of leased groups in a format, one JSON text at a time, as `tokentap export` makes them for a file
 * (group-contiguous, with advantages and loss weights over each group's exported rollouts): a row is the adapter's
 * JSON form (`toJson`) when it has one, else the row itself, typed arrays as arrays. Samples the format cannot hold
 * move from `summary`'s totals to `dropped` under the adapter's reason. Lazy, so a pull of many groups is written
 * out row by row instead of built whole; `summary` is complete once the generator is done.
 *
 * @example
 * const summary = createExportSummary();
 * for (const json of batchRows(store, ['task-1', 'task-2'], createTrainerAdapter('verl'), { filters: { split: 'train' } }, summary)) write(json);
 */
export function* batchRows(store: ExportSource, groupIds: string[], adapter: TrainerAdapter, selection: ExportSelection, summary: ExportSummary): Generator<string> {
  for (const item of exportSamples(store, { ...selection, groupIds, adapter, summary, readConversation })) {
    const row = adapter.toRow(item);
    if (isAdapterSkip(row)) {
      uncountSample(summary, item.sample, row.skip);
      continue;
    }
    yield JSON.stringify(toWireJson(adapter.toJson === undefined ? row : adapter.toJson(row)));
  }
}
