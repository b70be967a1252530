import { TokentapError } from '../core/errors/tokentap-error.js';
import type { Store } from '../store/index.js';
import { createTrainerAdapter } from '../trainer-adapters/index.js';
import { resolveAdvantageOptions } from './compute-advantages.js';
import type { ExportSelection, ExportSummary } from './export-options.js';
import { readExportProvenance, type ExportProvenance } from './export-provenance.js';
import { exportRows, type ExportRowsOptions } from './export-rows.js';
import { createExportSummary } from './export-summary.js';
import { createRecordWriter } from './writers/record-writer.js';

export interface ExportDatasetOptions extends ExportSelection {
  /** a trainer format (TRAINER_FORMATS), e.g. `verl` */
  format: string;
  /** the format's shape, for formats with several */
  shape?: string;
  /** `.jsonl` or `.parquet`: the file type comes from the extension */
  out: string;
  /** replace an existing file (otherwise refused) */
  force?: boolean;
  /** the model folder served (tokenizer.json, chat template): hashed into the file's provenance */
  modelDir?: string;
  onProgress?: ExportRowsOptions['onProgress'];
  /** stops the export: nothing is left behind (the temp file is removed) and the promise rejects */
  signal?: AbortSignal;
  /**
   * when the selection yields no sample, write nothing (an existing `out` stays as it was) and reject with
   * EXPORT_EMPTY, `details.summary` holding the counts; otherwise an empty dataset is written (`tokentap export
   * --fail-on-empty`, docs/export.md "Empty datasets")
   */
  failOnEmpty?: boolean;
}

/** Rows between two turns of the event loop, so a signal (Ctrl-C) is seen while a long export runs. */
const ROWS_PER_TURN = 64;

export interface ExportDatasetResult {
  path: string;
  summary: ExportSummary;
  provenance: ExportProvenance;
}

/**
 * Streams the chosen samples of a store into one dataset file in a trainer's format: one group in memory at a
 * time, written to a temp file renamed into place at the end (an interrupted export leaves no partial dataset).
 * Samples the format cannot hold are counted in `summary.dropped` under the adapter's reason.
 *
 * @example
 * const { summary } = await exportDataset(store, { format: 'verl', out: 'train.parquet', filters: { split: 'train' } });
 */
export async function exportDataset(store: Store, options: ExportDatasetOptions): Promise<ExportDatasetResult> {
  const adapter = createTrainerAdapter(options.format, options.shape === undefined ? {} : { shape: options.shape });
  const provenance = readExportProvenance(options.modelDir === undefined ? {} : { modelDir: options.modelDir });
  const summary = createExportSummary();
  const writer = createRecordWriter({
    path: options.out,
    columns: adapter.columns,
    metadata: {
      ...provenance,
      format: adapter.format,
      shape: adapter.shape ?? '',
      strategy: options.strategy ?? 'merge',
      advantage: JSON.stringify(resolveAdvantageOptions(options.advantage)),
      filters: JSON.stringify(options.filters ?? {}),
      // the rewards the advantages came from were not all the store's: say how many sessions a file gave
      ...(options.rewardOverrides === undefined ? {} : { reward_overrides: String(options.rewardOverrides.size) }),
    },
    ...(adapter.toJson === undefined ? {} : { toJson: adapter.toJson.bind(adapter) }),
    ...(options.force === undefined ? {} : { force: options.force }),
  });
  try {
    const rows = exportRows(store, adapter, { ...options, summary });
    let count = 0;
    for (const row of rows) {
      if (++count % ROWS_PER_TURN === 0) await new Promise(setImmediate);
      options.signal?.throwIfAborted();
      await writer.write(row);
    }
    options.signal?.throwIfAborted();
    if (summary.samples === 0 && options.failOnEmpty === true) {
      throw new TokentapError('EXPORT_EMPTY', { message: `the export holds no sample: nothing written to ${options.out}`, details: { summary } });
    }
    const written = await writer.close();
    summary.bytes = written.bytes;
    return { path: written.path, summary, provenance };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
