import { applyRolloutFields, type RolloutFieldsSource } from './apply-rollout-fields.js';
import { assignLossWeights } from './assign-loss-weights.js';
import { reconstructChains } from './reconstruct-calls.js';
import type { ReconstructSource, SessionReconstruction, SessionReportOptions } from './reconstruct-options.js';
import type { Sample } from './sample.js';

/**
 * The training samples of one recorded session (docs/reconstruct.md). Every sample holds the invariant that
 * `verifySample` checks against the raw call rows.
 *
 * @example
 * const samples = reconstructSession(store, 'run-42', { strategy: 'merge' });
 * for (const sample of samples) console.log(sample.tokens.length, sample.lossWeight, sample.diagnostics);
 */
export function reconstructSession(store: ReconstructSource & RolloutFieldsSource, sessionId: string, options: SessionReportOptions = {}): Sample[] {
  return reconstructSessionReport(store, sessionId, options).samples;
}

/**
 * The samples of one session together with what did not become a sample (skipped calls, with reasons) and every
 * chain break with its drift diagnostic: what `tokentap diagnose` prints. The samples are complete when they come
 * out: group, rewards and end status stamped, the caller's `keepSample` applied, then each weighed once; nothing
 * downstream changes them.
 *
 * @example
 * const report = reconstructSessionReport(store, 'run-42', { tokenizer });
 * report.driftCounts['template-rerender']; // 19
 */
export function reconstructSessionReport(
  store: ReconstructSource & RolloutFieldsSource,
  sessionId: string,
  options: SessionReportOptions = {},
): SessionReconstruction {
  const report = reconstructChains(sessionId, store.listCalls(sessionId), (callId) => store.getCallBodies(callId, { lazy: true }), options);
  // group, rewards and end status from the rollout API, when the store has them: a session that ended failed or
  // aborted gives its samples that status, so the weights come after
  applyRolloutFields(report.samples, sessionId, store, options.rollout);
  const keep = options.keepSample;
  const samples = keep === undefined ? report.samples : report.samples.filter((sample) => keep(sample));
  assignLossWeights(samples, options.weighedStatuses);
  return { ...report, samples };
}
