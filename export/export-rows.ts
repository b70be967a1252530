import { readConversation } from '../trainer-adapters/conversation/read-conversation.js';
import { isAdapterSkip, type ExportRow, type TrainerAdapter } from '../trainer-adapters/trainer-adapter.js';
import type { ExportSelection, ExportSummary } from './export-options.js';
import { createExportSummary, streamExportSamples, type ExportSamplesOptions, type ExportSource } from './export-samples.js';
import { countReason, countSample } from './export-summary.js';

export interface ExportRowsOptions extends ExportSelection {
  /** only these complete groups (the pull API), in this order; otherwise every unit that passes the filters */
  groupIds?: string[];
  /** counters, complete once the generator is done: a sample is counted when its row is made, an adapter's skip in `dropped` */
  summary?: ExportSummary;
  onProgress?: ExportSamplesOptions['onProgress'];
}

/**
 * The one export pass: the rows of an export in a trainer's format, as `tokentap export` writes them to a file and
 * the pull API sends them (group-contiguous, advantages and loss weights over each group's exported rollouts). A
 * sample the format cannot hold (the adapter's skip) is counted in `summary.dropped` under the adapter's reason and
 * yields nothing; every other sample is counted once, as its row is made. Lazy: one unit's samples in memory at a time.
 *
 * @example
 * const summary = createExportSummary();
 * for (const row of exportRows(store, createTrainerAdapter('verl'), { filters: { split: 'train' }, summary })) writer.write(row);
 */
export function exportRows(store: ExportSource, adapter: TrainerAdapter, options: ExportRowsOptions = {}): Generator<ExportRow> {
  const summary = options.summary ?? createExportSummary();
  const samples = streamExportSamples(store, { ...options, adapter, summary, readConversation });
  return adapterRows(samples, adapter, summary);
}

function* adapterRows(samples: ReturnType<typeof streamExportSamples>, adapter: TrainerAdapter, summary: ExportSummary): Generator<ExportRow> {
  for (const item of samples) {
    const row = adapter.toRow(item);
    if (isAdapterSkip(row)) {
      countReason(summary.dropped, row.skip);
      continue;
    }
    countSample(summary, item.sample);
    yield row;
  }
}
