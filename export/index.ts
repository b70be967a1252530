// The export's public surface: selection, filters, advantages, loss weights and stats (docs/export.md).
// One export line per module; writers and query parsing add theirs below.
export type { ExportFilters, RewardOverride, AdvantageEstimator, AdvantageOptions, ExportSelection, ExportSummary } from './export-options.js';
export { exportSamples, type ExportSamplesOptions, type ExportSource } from './export-samples.js';
export { exportRows, type ExportRowsOptions } from './export-rows.js';
export { createExportSummary } from './export-summary.js';
export {
  computeAdvantages,
  isZeroVariance,
  resolveAdvantageOptions,
  sampleStandardDeviation,
  DEFAULT_ADVANTAGE_EPSILON,
} from './compute-advantages.js';
export {
  createSampleFilter,
  trainedPolicyVersions,
  DEFAULT_EXPORT_STATUSES,
  type SampleFilter,
  type SampleFilterOptions,
} from './create-sample-filter.js';
export { isRolloutSelected, rolloutFilterReason, ROLLOUT_FILTER_REASONS } from './select-rollouts.js';
export { selectExportUnits, DEFAULT_UNIT_PAGE, type ExportUnit } from './select-export-units.js';
export { newestPolicyVersions } from './newest-policy-versions.js';
export { computeDatasetStats, type DatasetStats, type Distribution, type HistogramBin } from './dataset-stats.js';
export { formatDatasetStats } from './format-dataset-stats.js';
export { exportDataset, type ExportDatasetOptions, type ExportDatasetResult } from './export-dataset.js';
export { readExportProvenance, tokentapVersion, EXPORT_SCHEMA_VERSION, type ExportProvenance } from './export-provenance.js';
export { readRewardOverrides, type RewardOverrideProblem, type RewardOverrides } from './read-reward-overrides.js';
export { parseExportQuery, type ExportQueryValues, type ParsedExportQuery } from './parse-export-query.js';
export {
  createRecordWriter,
  RECORD_FILE_EXTENSIONS,
  type RecordWriter,
  type RecordWriterOptions,
  type RecordWriterResult,
} from './writers/record-writer.js';
export { ExportPathError, type ExportPathErrorCode } from './writers/export-path-error.js';
export { DEFAULT_ROW_GROUP_ROWS, DEFAULT_ROW_GROUP_VALUES } from './writers/parquet-record-writer.js';
