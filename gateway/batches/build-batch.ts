import type { ExportSelection, ExportSummary } from '../../export/export-options.js';
import { exportRows } from '../../export/export-rows.js';
import type { ExportSource } from '../../export/export-samples.js';
import type { TrainerAdapter } from '../../trainer-adapters/index.js';
import { toWireJson } from './to-wire-json.js';

/**
 * The rows of leased groups in a format, one JSON text at a time: exportRows' rows (the pass `tokentap export`
 * writes files from), each as the adapter's JSON form (`toJson`) when it has one, else the row itself, typed arrays
 * as arrays. Lazy, so a pull of many groups is written out row by row instead of built whole; `summary` is complete
 * once the generator is done.
 *
 * @example
 * const summary = createExportSummary();
 * for (const json of batchRows(store, ['task-1', 'task-2'], createTrainerAdapter('verl'), { filters: { split: 'train' } }, summary)) write(json);
 */
export function* batchRows(
  store: ExportSource,
  groupIds: string[],
  adapter: TrainerAdapter,
  selection: ExportSelection,
  summary: ExportSummary,
): Generator<string> {
  for (const row of exportRows(store, adapter, { ...selection, groupIds, summary })) {
    yield JSON.stringify(toWireJson(adapter.toJson === undefined ? row : adapter.toJson(row)));
  }
}
