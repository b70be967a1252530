// The trainer-format registry: every `--format` tokentap can export, and the one way to build its adapter.
import { JSONL_FORMAT, PARQUET_FORMAT } from './generic/generic-adapter.js';
import { OPENRLHF_FORMAT } from './openrlhf/openrlhf-adapter.js';
import { SFT_MESSAGES_FORMAT } from './sft-messages/sft-messages-adapter.js';
import { SHAREGPT_FORMAT } from './sharegpt/sharegpt-adapter.js';
import { SKYRL_FORMAT } from './skyrl/skyrl-adapter.js';
import { SLIME_FORMAT } from './slime/slime-adapter.js';
import { TINKER_FORMAT } from './tinker/tinker-adapter.js';
import type { TrainerAdapter } from './trainer-adapter.js';
import type { TrainerFormat, TrainerFormatInfo } from './trainer-format.js';
import { TRL_GRPO_FORMAT } from './trl-grpo/trl-grpo-adapter.js';
import { TRL_SFT_FORMAT } from './trl-sft/trl-sft-adapter.js';
import { VERL_FORMAT } from './verl/verl-adapter.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

export type { AdapterNeeds, AdapterSkip, ColumnSpec, ColumnType, ExportRow, TrainerAdapter } from './trainer-adapter.js';
export { isAdapterSkip } from './trainer-adapter.js';
export type { Conversation, ConversationMessage, ExportSample } from './export-sample.js';
export type { TrainerFormat, TrainerFormatInfo } from './trainer-format.js';

/** The registry, in the order `--help` and docs/formats.md list them: a new format is one import and one line. */
const FORMATS: readonly TrainerFormat[] = [
  // token-level: the generic rows, then one per RL trainer
  JSONL_FORMAT,
  PARQUET_FORMAT,
  VERL_FORMAT,
  SLIME_FORMAT,
  OPENRLHF_FORMAT,
  TRL_GRPO_FORMAT,
  TINKER_FORMAT,
  SKYRL_FORMAT,
  // chat-text (SFT) formats
  TRL_SFT_FORMAT,
  SFT_MESSAGES_FORMAT,
  SHAREGPT_FORMAT,
];

/**
 * Every trainer format: name, shapes (with the default) and a one-line description.
 *
 * @example
 * for (const { format, shapes } of TRAINER_FORMATS) console.log(format, shapes ?? []);
 */
export const TRAINER_FORMATS: readonly TrainerFormatInfo[] = FORMATS.map(({ format, shapes, defaultShape, description }) => ({
  format,
  ...(shapes === undefined ? {} : { shapes, defaultShape }),
  description,
}));

/**
 * The adapter of a format, for one shape (the format's default when none is given).
 *
 * @throws TokentapError EXPORT_UNKNOWN_FORMAT naming the valid formats (or shapes) when `format` (or `shape`) is not one of them
 * @example
 * const adapter = createTrainerAdapter('tinker', { shape: 'sft' });
 * adapter.columns.map((column) => column.name); // ['model_input_tokens', 'target_tokens', 'weights', ...]
 */
export function createTrainerAdapter(format: string, options: { shape?: string } = {}): TrainerAdapter {
  const entry = FORMATS.find((candidate) => candidate.format === format);
  if (entry === undefined) {
    throw new TokentapError('EXPORT_UNKNOWN_FORMAT', {
      message: `unknown trainer format '${format}'; valid formats: ${FORMATS.map((candidate) => candidate.format).join(', ')}`,
    });
  }
  const { shape } = options;
  if (entry.shapes === undefined) {
    if (shape !== undefined)
      throw new TokentapError('EXPORT_UNKNOWN_FORMAT', { message: `trainer format '${format}' has no shapes, but shape '${shape}' was given` });
    return entry.create(undefined);
  }
  if (shape !== undefined && !entry.shapes.includes(shape)) {
    throw new TokentapError('EXPORT_UNKNOWN_FORMAT', {
      message: `unknown shape '${shape}' for trainer format '${format}'; valid shapes: ${entry.shapes.join(', ')}`,
    });
  }
  return entry.create(shape ?? entry.defaultShape);
}
