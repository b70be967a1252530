import type { TrainerAdapter } from './trainer-adapter.js';

/** What the registry lists about a format: `tokentap export --help` and docs/formats.md read it. */
export interface TrainerFormatInfo {
  /** the `--format` name */
  format: string;
  /** the `--shape` values, for formats with several (the first is not necessarily the default) */
  shapes?: readonly string[];
  /** the shape used when none is asked for */
  defaultShape?: string;
  description: string;
}

/**
 * One entry of the trainer-format registry (trainer-adapters/index.ts): the format's info and how to build its
 * adapter. A format folder exports one (or, for one format under two names, two) of these.
 *
 * @example
 * export const VERL_FORMAT: TrainerFormat = { format: 'verl', description: '...', create: () => createVerlAdapter() };
 */
export interface TrainerFormat extends TrainerFormatInfo {
  /** `shape` is one of `shapes` (already checked, the default when none was asked for); undefined without shapes */
  create(shape: string | undefined): TrainerAdapter;
}
