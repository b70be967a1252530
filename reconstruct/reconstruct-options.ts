import type { CallBodies, CallRow, CallStatus, RewardRow, RolloutRow, Store } from '../store/index.js';
import type { DriftDiagnostic, DriftKind, Sample, SampleStatus } from './sample.js';
import type { CallErrorSummary } from './describe-failed-call.js';

/**
 * How calls become samples (docs/reconstruct.md):
 * - `per-call`: one sample per call (its prompt as context, its completion trained); always faithful, costs
 *   the whole prompt again for every call.
 * - `merge`: calls whose prompt extends an earlier call's prompt + completion exactly share one sample.
 */
export type ReconstructStrategy = 'per-call' | 'merge';

/** What reconstruction reads from a store: a session's calls, and bodies only to classify a chain break. */
export type ReconstructSource = Pick<Store, 'listCalls' | 'getCallBodies'>;

/** Turns ids into text for drift excerpts and for telling a retokenization from a re-render; an HfTokenizer fits. */
export interface DriftTokenizer {
  decode(ids: readonly number[]): string;
}

/**
 * Rebuilds token ids from the stored bodies of a call the backend gave no ids for (`tokenSource: 'none'`).
 * Bind your tokenizer: `retokenizer: (call, bodies) => tryRetokenizeCall(call, bodies, retokenizer)` (or
 * `retokenizeCall`, which answers null instead of a refusal). Samples made from its ids are `faithful: false`.
 */
export type RetokenizeCall = (
  call: CallRow,
  bodies: CallBodies,
) => { promptTokenIds: Int32Array; completionTokenIds: Int32Array } | { source: 'refused'; reason: string; detail?: string } | null;

export interface ReconstructOptions {
  /** default `merge` */
  strategy?: ReconstructStrategy;
  /** adds text to drift excerpts and lets a break be classified `retokenized` (same text, other ids) */
  tokenizer?: DriftTokenizer;
  /** used only for calls with `tokenSource: 'none'`; without it they are skipped (and reported) */
  retokenizer?: RetokenizeCall;
}

/** A session's rollout row and current rewards, as a caller that has read them already hands them over. */
export interface KnownRollout {
  rollout: RolloutRow | null;
  rewards: readonly RewardRow[];
}

/** reconstructSessionReport's options: how to reconstruct, and what the caller keeps and weighs. */
export interface SessionReportOptions extends ReconstructOptions {
  /** the session's rollout row and rewards when the caller has read them (the export reads each rollout's once) */
  rollout?: KnownRollout;
  /**
   * Called once per sample, after the rollout's fields are stamped and before the loss weights: false leaves the
   * sample out of the report, so the weights are over the samples kept (the export's filters). Must not change it.
   */
  keepSample?: (sample: Readonly<Sample>) => boolean;
  /** the statuses whose samples count in the loss weights (default `completed`, `truncated`) */
  weighedStatuses?: readonly SampleStatus[];
}

/** A call that produced no sample, and why (reported, never dropped silently). */
export interface SkippedCall {
  callId: string;
  seq: number;
  status: CallStatus;
  /** e.g. `the call failed (backend_error, HTTP 404, TT_BACKEND_ERROR)`, `flagged invalid_token_ids: ...` */
  reason: string;
  /** a call that failed with nothing to keep: its error (code, HTTP status, message) */
  error?: CallErrorSummary;
}

/** Everything reconstruction found in one session: the samples and what it could not turn into samples. */
export interface SessionReconstruction {
  sessionId: string;
  strategy: ReconstructStrategy;
  /** in order of each sample's first call */
  samples: Sample[];
  skipped: SkippedCall[];
  /** every chain break, in call order (merge only; per-call samples have no chains to break) */
  drift: DriftDiagnostic[];
  driftCounts: Record<DriftKind, number>;
}
