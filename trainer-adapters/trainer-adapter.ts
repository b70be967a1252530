import type { ExportSample } from './export-sample.js';

/**
 * The value types a format's columns may hold. Parquet maps them to physical/logical types (lists as 3-level
 * LIST: `int32[]` -> list<int32>, `uint8[]` -> list<uint8>, `float32[]` -> list<float>); JSONL writes them as
 * JSON (typed arrays as arrays of numbers). `json` is a nested JSON value: written as is in JSONL and as a
 * JSON string (logical type JSON) in Parquet, because readers null-fill heterogeneous structs (docs/export.md).
 */
export type ColumnType =
  'string' | 'int32' | 'int64' | 'float32' | 'float64' | 'bool' | 'int32[]' | 'int64[]' | 'float32[]' | 'uint8[]' | 'string[]' | 'json';

/** One column of a format: the same names and order in JSONL keys and Parquet columns. */
export interface ColumnSpec {
  name: string;
  type: ColumnType;
  /** null allowed (e.g. `reward` of an unrewarded rollout in the generic rows) */
  nullable?: boolean;
  /** one line for docs/formats.md and `tokentap export --format NAME --help` */
  description: string;
}

/**
 * One output row. Values by column type: `string` string; `int32`/`int64`/`float32`/`float64` number;
 * `bool` boolean; `int32[]` Int32Array; `int64[]` Int32Array or number[]; `float32[]` Float32Array;
 * `uint8[]` Uint8Array; `string[]` string[]; `json` any JSON value; null where the column is nullable.
 */
export type ExportRow = Record<string, unknown>;

/** A sample this format cannot represent, and why (counted in the export summary under `reason`). */
export interface AdapterSkip {
  skip: string;
}

/** What the export must hand an adapter besides the sample itself. */
export interface AdapterNeeds {
  /** RL formats: a sample of a rollout without a reward is dropped (reason `no_reward`) */
  reward: boolean;
  /** formats with an advantage field: a sample without an advantage is dropped (reason `no_advantage`) */
  advantage: boolean;
  /** chat-text formats (SFT): the export reads the conversation of the sample's last call (ExportSample.conversation) */
  conversation: boolean;
}

/**
 * A trainer format: only renames, slices and pads reconstructed samples (STYLE.md). Built by
 * `createTrainerAdapter(format, { shape })` (trainer-adapters/index.ts), one shape fixed per instance.
 *
 * @example
 * const adapter = createTrainerAdapter('verl');
 * const row = adapter.toRow(exportSample); // { uid, prompt_ids, response_ids, response_mask, ... }
 */
export interface TrainerAdapter {
  /** the `--format` name, e.g. `verl`, `trl-sft` */
  format: string;
  /** the `--shape` in force, for formats with several (trl-sft, skyrl, tinker); else undefined */
  shape: string | undefined;
  description: string;
  needs: AdapterNeeds;
  /** the row schema, in column order */
  columns: readonly ColumnSpec[];
  toRow(sample: ExportSample): ExportRow | AdapterSkip;
  /**
   * The JSONL line of a row when the format's native JSON is nested (Tinker's Datum); without it a JSONL line
   * is the row itself. Parquet always writes the flat columns.
   */
  toJson?(row: ExportRow): unknown;
}

/** @example if (isAdapterSkip(result)) summary.drop(result.skip); */
export function isAdapterSkip(value: ExportRow | AdapterSkip): value is AdapterSkip {
  return typeof (value as AdapterSkip).skip === 'string' && Object.keys(value).length === 1;
}
