import type { CallRow } from '../store/index.js';
import type { DriftDiagnostic, Sample, SampleStatus } from './sample.js';

/** One call's part of a sample: the context it was given and what it sampled. */
export interface SampledTurn {
  call: CallRow;
  prompt: Int32Array;
  completion: Int32Array;
  /** null for retokenized calls: the backend reported none */
  logprobs: Float32Array | null;
}

export interface BuildSampleFields {
  sessionId: string;
  chainIndex: number;
  status: SampleStatus;
  faithful: boolean;
  diagnostics: DriftDiagnostic[];
}

/**
 * Lays out a sample from turns whose prompts each start with the turns before them (the caller checked that):
 * the tokens are the last turn's prompt and completion, so every earlier token is the context the backend saw;
 * each turn's completion gets mask 1, its logprobs and its call's policy version; everything else is context.
 * The loss weight is set later, once the session's samples are counted.
 *
 * @example
 * const sample = buildSample([{ call, prompt: call.promptTokenIds!, completion, logprobs }], fields);
 */
export function buildSample(turns: readonly SampledTurn[], fields: BuildSampleFields): Sample {
  const last = turns.at(-1);
  const first = turns[0];
  if (last === undefined || first === undefined) throw new Error('a sample needs at least one turn');
  const length = last.prompt.length + last.completion.length;
  const tokens = new Int32Array(length);
  tokens.set(last.prompt, 0);
  tokens.set(last.completion, last.prompt.length);
  const lossMask = new Uint8Array(length);
  const logprobs = new Float32Array(length);
  const policyVersions = new Array<string | null>(length).fill(null);
  for (const turn of turns) {
    const start = turn.prompt.length;
    const end = start + turn.completion.length;
    lossMask.fill(1, start, end);
    // no backend logprob for a retokenized token: NaN, so a trainer that needs one cannot use a made-up value
    if (turn.logprobs === null) logprobs.fill(Number.NaN, start, end);
    else logprobs.set(turn.logprobs, start);
    if (turn.call.policyVersion !== null) policyVersions.fill(turn.call.policyVersion, start, end);
  }
  return {
    sessionId: fields.sessionId,
    chainIndex: fields.chainIndex,
    tokens,
    lossMask,
    logprobs,
    policyVersions,
    promptLength: first.prompt.length,
    callIds: turns.map((turn) => turn.call.id),
    rolloutId: fields.sessionId,
    lossWeight: 0,
    status: fields.status,
    faithful: fields.faithful,
    diagnostics: fields.diagnostics,
  };
}
