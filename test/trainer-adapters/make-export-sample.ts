import type { Sample } from '../../reconstruct/index.js';
import type { ExportSample } from '../../trainer-adapters/index.js';

/**
 * A hand-built two-call sample: prompt [10, 11, 12], first completion [13, 14] (sampled), a tool result and
 * second prompt [15, 16] (context), second completion [17] (sampled). Overrides replace any field.
 */
export function makeSample(overrides: Partial<Sample> = {}): Sample {
  return {
    sessionId: 'session-1',
    chainIndex: 0,
    tokens: Int32Array.of(10, 11, 12, 13, 14, 15, 16, 17),
    lossMask: Uint8Array.of(0, 0, 0, 1, 1, 0, 0, 1),
    logprobs: Float32Array.of(0, 0, 0, -0.5, -0.25, 0, 0, -1.5),
    policyVersions: [null, null, null, 'v1', 'v1', null, null, 'v2'],
    promptLength: 3,
    callIds: ['call-1', 'call-2'],
    rolloutId: 'rollout-1',
    groupId: 'group-1',
    reward: 0.75,
    lossWeight: 0.5,
    status: 'completed',
    faithful: true,
    diagnostics: [],
    ...overrides,
  };
}

/** The sample as the export hands it over: the second of two samples of the third rollout of the second group. */
export function makeExportSample(overrides: Partial<ExportSample> = {}, sampleOverrides: Partial<Sample> = {}): ExportSample {
  return {
    sample: makeSample(sampleOverrides),
    index: 7,
    groupKey: 'group-1',
    groupIndex: 1,
    rolloutIndex: 4,
    repetitionIndex: 2,
    rolloutSampleIndex: 1,
    rolloutSampleCount: 2,
    advantage: 1.25,
    lossWeight: 0.5,
    policyVersions: ['v1', 'v2'],
    ...overrides,
  };
}
