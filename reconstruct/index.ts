// Reconstruction's public surface: recorded calls -> training samples, the verifier, drift diagnostics.
export type { Sample, SampleStatus, DriftDiagnostic, DriftKind } from './sample.js';
export type {
  ReconstructOptions,
  ReconstructStrategy,
  ReconstructSource,
  RetokenizeCall,
  DriftTokenizer,
  SkippedCall,
  SessionReconstruction,
  SessionReportOptions,
  KnownRollout,
} from './reconstruct-options.js';
export { reconstructSession, reconstructSessionReport } from './reconstruct-session.js';
export { reconstructCalls } from './reconstruct-calls.js';
export { iterateSamples, iterateSessions, type IterateSamplesOptions, type IterateSource } from './iterate-samples.js';
export { verifySample, type VerifyResult } from './verify-sample.js';
export { countDrift, DRIFT_KINDS } from './count-drift.js';
export { describeFailedCall, type CallErrorSummary } from './describe-failed-call.js';
export { DEFAULT_WEIGHED_STATUSES } from './assign-loss-weights.js';
