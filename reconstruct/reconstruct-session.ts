import { applyRolloutFields, type RolloutFieldsSource } from './apply-rollout-fields.js';
import { assignLossWeights } from './assign-loss-weights.js';
import { reconstructCalls } from './reconstruct-calls.js';
import type { ReconstructOptions, ReconstructSource, SessionReconstruction } from './reconstruct-options.js';
import type { Sample } from './sample.js';

/**
 * The training samples of one recorded session (docs/reconstruct.md). Every sample holds the invariant that
 * `verifySample` checks against the raw call rows.
 *
 * @example
 * const samples = reconstructSession(store, 'run-42', { strategy: 'merge' });
 * for (const sample of samples) console.log(sample.tokens.length, sample.lossWeight, sample.diagnostics);
 */
export function reconstructSession(store: ReconstructSource & RolloutFieldsSource, sessionId: string, options: ReconstructOptions = {}): Sample[] {
  return reconstructSessionReport(store, sessionId, options).samples;
}

/**
 * The samples of one session together with what did not become a sample (skipped calls, with reasons) and every
 * chain break with its drift diagnostic: what `tokentap diagnose` prints.
 *
 * @example
 * const report = reconstructSessionReport(store, 'run-42', { tokenizer });
 * report.driftCounts['template-rerender']; // 19
 */
export function reconstructSessionReport(store: ReconstructSource & RolloutFieldsSource, sessionId: string, options: ReconstructOptions = {}): SessionReconstruction {
  const report = reconstructCalls(sessionId, store.listCalls(sessionId), (callId) => store.getCallBodies(callId, { lazy: true }), options);
  // group, rewards and end status from the rollout API, when the store has them
  applyRolloutFields(report.samples, sessionId, store);
  // again: a session that ended failed or aborted gave its samples that status, and those are not counted
  assignLossWeights(report.samples);
  return report;
}
