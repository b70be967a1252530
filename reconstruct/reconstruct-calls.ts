import type { CallBodies, CallRow } from '../store/index.js';
import { assignChains, type ChainAssignment, type ChainEntry } from './assign-chains.js';
import { assignLossWeights } from './assign-loss-weights.js';
import { buildSample, type SampledTurn } from './build-sample.js';
import { classifyCall, type CallRole } from './classify-call.js';
import { classifyDrift, type BreakSide, type DriftEvidence } from './classify-drift.js';
import { countDrift } from './count-drift.js';
import { describeDrift } from './describe-drift.js';
import { readChatTurn, type ChatTurn } from './read-chat-turn.js';
import type { ReconstructOptions, SessionReconstruction, SkippedCall } from './reconstruct-options.js';
import type { DriftDiagnostic, Sample } from './sample.js';

/** A sample before it is numbered, keyed by its first call's place in the session. */
interface PendingSample {
  firstSeq: number;
  sample: Sample;
}

/**
 * Turns one session's calls (in seq order) into samples, weighed (assignLossWeights). `readBodies` is asked only for
 * the calls on either side of a chain break, and for calls to retokenize.
 *
 * @example
 * const report = reconstructCalls('run-1', store.listCalls('run-1'), (id) => store.getCallBodies(id, { lazy: true }), { strategy: 'merge' });
 */
export function reconstructCalls(
  sessionId: string,
  calls: readonly CallRow[],
  readBodies: (callId: string) => CallBodies | null,
  options: ReconstructOptions = {},
): SessionReconstruction {
  const report = reconstructChains(sessionId, calls, readBodies, options);
  assignLossWeights(report.samples);
  return report;
}

/**
 * reconstructCalls without the loss weights (every sample at 0): for reconstructSessionReport, which weighs once,
 * after the rollout's end status and the caller's drops are known.
 *
 * @example
 * const report = reconstructChains('run-1', store.listCalls('run-1'), (id) => store.getCallBodies(id, { lazy: true }), {});
 */
export function reconstructChains(
  sessionId: string,
  calls: readonly CallRow[],
  readBodies: (callId: string) => CallBodies | null,
  options: ReconstructOptions = {},
): SessionReconstruction {
  const strategy = options.strategy ?? 'merge';
  const roles = calls.map((call) => classifyCall(call, { canRetokenize: options.retokenizer !== undefined }));
  const skipped: SkippedCall[] = [];
  const pending: PendingSample[] = [];
  // a fresh diagnostics array per sample: consumers may annotate one without touching the others
  const fields = (): { sessionId: string; chainIndex: number; diagnostics: DriftDiagnostic[] } => ({ sessionId, chainIndex: 0, diagnostics: [] });
  for (const [index, call] of calls.entries()) {
    const role = roles[index] as CallRole;
    if (role.kind === 'skip')
      skipped.push({
        callId: call.id,
        seq: call.seq,
        status: call.status,
        reason: role.reason,
        ...(role.error === undefined ? {} : { error: role.error }),
      });
    else if (role.kind === 'retokenize') {
      const turn = retokenizedTurn(call, readBodies, options);
      if (typeof turn === 'string') skipped.push({ callId: call.id, seq: call.seq, status: call.status, reason: turn });
      else {
        const status = call.finishReason === 'length' ? 'truncated' : 'completed';
        pending.push({ firstSeq: call.seq, sample: buildSample([turn], { ...fields(), status, faithful: false }) });
      }
    } else if (strategy === 'per-call' || role.kind === 'own') {
      pending.push({ firstSeq: call.seq, sample: buildSample([recordedTurn(call)], { ...fields(), status: role.status, faithful: true }) });
    }
  }
  const drift = strategy === 'merge' ? mergeChains(sessionId, calls, roles, readBodies, options, pending) : [];
  pending.sort((left, right) => left.firstSeq - right.firstSeq);
  const samples = pending.map(({ sample }, chainIndex) => ({ ...sample, chainIndex }));
  return { sessionId, strategy, samples, skipped, drift, driftCounts: countDrift(drift) };
}

/** Builds the merged chains into `pending` and returns their breaks, classified, in call order. */
function mergeChains(
  sessionId: string,
  calls: readonly CallRow[],
  roles: readonly CallRole[],
  readBodies: (callId: string) => CallBodies | null,
  options: ReconstructOptions,
  pending: PendingSample[],
): DriftDiagnostic[] {
  const entries: ChainEntry[] = [];
  const finishedAs = new Map<string, Sample['status']>();
  for (const [index, call] of calls.entries()) {
    const role = roles[index] as CallRole;
    if (call.tokenSource !== 'backend' || call.promptTokenIds === null || role.kind === 'retokenize') continue;
    entries.push({ call, prompt: call.promptTokenIds, completion: call.completionTokenIds, mergeable: role.kind === 'chain' });
    if (role.kind === 'chain') finishedAs.set(call.id, role.status);
  }
  const assignment = assignChains(entries);
  const diagnostics = describeBreaks(entries, assignment, readBodies, options);
  for (const chain of assignment.chains) {
    const turns = chain.map((entry) => recordedTurn((entries[entry] as ChainEntry).call));
    const first = turns[0]?.call as CallRow;
    const opening = diagnostics.get(first.id);
    // a chain ends the way its last call did: cut by max tokens, or completed
    const status = finishedAs.get((turns.at(-1) as SampledTurn).call.id) ?? 'completed';
    const sample = buildSample(turns, { sessionId, chainIndex: 0, status, faithful: true, diagnostics: opening === undefined ? [] : [opening] });
    pending.push({ firstSeq: first.seq, sample });
  }
  return [...diagnostics.values()];
}

function describeBreaks(
  entries: readonly ChainEntry[],
  assignment: ChainAssignment,
  readBodies: (callId: string) => CallBodies | null,
  options: ReconstructOptions,
): Map<string, DriftDiagnostic> {
  const turns = new Map<string, ChatTurn | null>();
  const readTurn = (call: CallRow): ChatTurn | null => {
    if (!turns.has(call.id)) turns.set(call.id, readChatTurn(readBodies(call.id)));
    return turns.get(call.id) ?? null;
  };
  const chainEnds = assignment.chains.map((chain) => chain.at(-1) as number);
  const diagnostics = new Map<string, DriftDiagnostic>();
  for (const chainBreak of assignment.breaks) {
    const opened = entries[chainBreak.entry] as ChainEntry;
    const against = chainBreak.against === null ? null : (entries[chainBreak.against] as ChainEntry);
    const againstChain = chainBreak.against === null ? -1 : (assignment.chainOf[chainBreak.against] as number);
    const evidence: DriftEvidence = {
      opened: side(opened),
      against: against === null ? null : side(against),
      position: chainBreak.position,
      againstContinuesLater: againstChain !== -1 && (chainEnds[againstChain] as number) > chainBreak.entry,
      readTurn,
      ...(options.tokenizer === undefined ? {} : { tokenizer: options.tokenizer }),
    };
    diagnostics.set(opened.call.id, describeDrift(evidence, classifyDrift(evidence)));
  }
  return diagnostics;
}

function side(entry: ChainEntry): BreakSide {
  return { call: entry.call, prompt: entry.prompt, completion: entry.completion, mergeable: entry.mergeable };
}

/** A call's own recorded ids (classifyCall checked they are all there). */
function recordedTurn(call: CallRow): SampledTurn {
  return {
    call,
    prompt: call.promptTokenIds as Int32Array,
    completion: call.completionTokenIds as Int32Array,
    logprobs: call.completionLogprobs as Float32Array,
  };
}

/** The call's ids rebuilt from its text, or why they could not be. */
function retokenizedTurn(call: CallRow, readBodies: (callId: string) => CallBodies | null, options: ReconstructOptions): SampledTurn | string {
  const bodies = readBodies(call.id);
  if (bodies === null || options.retokenizer === undefined) return 'no stored bodies to retokenize';
  const ids = options.retokenizer(call, bodies);
  if (ids === null) return 'the retokenizer could not rebuild its ids';
  if ('source' in ids && ids.source === 'refused')
    return `the retokenizer refused: ${ids.reason}${ids.detail === undefined ? '' : ` (${ids.detail})`}`;
  if (!('promptTokenIds' in ids)) return 'the retokenizer returned no ids';
  return { call, prompt: ids.promptTokenIds, completion: ids.completionTokenIds, logprobs: null };
}
