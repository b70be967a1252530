/**
 * The training sample: defined once here; reconstruction produces it, the verifier checks it, the rollout API
 * and every trainer adapter consume it.
 */

/** Why a chain of calls was broken into two samples (see docs/reconstruct.md). */
export type DriftKind =
  /** the chat template re-rendered earlier turns differently (e.g. Qwen3 dropping earlier `<think>`) */
  | 'template-rerender'
  /** the same text came back as different token ids */
  | 'retokenized'
  /** the harness changed its history (compaction, truncation, edited messages) */
  | 'history-edited'
  /** the call continues from the middle of another chain (a sub-agent, a retry, a parallel branch) */
  | 'parallel-branch'
  /** the earlier call's completion was cut (max tokens, abort, backend error) so its tokens cannot be extended */
  | 'truncated-completion';

/** One chain break, made visible: where the new prompt left the chain, and how it differs. */
export interface DriftDiagnostic {
  kind: DriftKind;
  /** the call whose prompt did not extend the chain */
  callId: string;
  /** the chain tip it was compared with (null when no earlier call shared anything) */
  againstCallId: string | null;
  /** index of the first token that differs (= the length of the shared prefix) */
  position: number;
  /** a short excerpt around the divergence: ids and, where a tokenizer is at hand, text */
  expected: { tokenIds: number[]; text?: string };
  actual: { tokenIds: number[]; text?: string };
  /** one line for humans */
  summary: string;
}

export type SampleStatus = 'completed' | 'truncated' | 'failed' | 'aborted' | 'in_progress' | 'unknown';

/**
 * One training sample: a token sequence with a loss mask.
 *
 * Invariant (checked by reconstruct/verify-sample.ts, which reads only raw call rows): every token with mask 1
 * is a token the backend sampled, at the same position of the same context the backend conditioned on, with the
 * logprob the backend reported for it; tokens with mask 0 are exactly the recorded context.
 */
export interface Sample {
  sessionId: string;
  /** index of the chain inside its session (0, 1, ...), in order of the chain's first call */
  chainIndex: number;
  tokens: Int32Array;
  /** 1 where the token was sampled by the backend in one of `callIds`, 0 for context */
  lossMask: Uint8Array;
  /** the backend's logprob of each sampled token; 0 where the mask is 0 */
  logprobs: Float32Array;
  /** per token: the policy version of the call that sampled it (null for context and unversioned calls) */
  policyVersions: Array<string | null>;
  /** length of the first call's prompt: tokens before it are never sampled */
  promptLength: number;
  /** the calls merged into this sample, in order */
  callIds: string[];
  /** the rollout this sample belongs to (the session id unless the rollout API says otherwise) */
  rolloutId: string;
  /** the session's group (GRPO group / task id), when the rollout API gave it one */
  groupId?: string;
  /** the session's current reward, the same on every sample of the session (docs/rollouts.md) */
  reward?: number;
  /** the named parts of `reward`, when it was posted as components */
  rewardComponents?: Record<string, number>;
  /** the current reward of each of this sample's calls that was rewarded on its own, in call order */
  callRewards?: Array<{ callId: string; value: number; components?: Record<string, number> }>;
  /** weight of this sample's loss, so a rollout split into several samples is not counted several times */
  lossWeight: number;
  status: SampleStatus;
  /** false when any token came from retokenized text rather than backend ids */
  faithful: boolean;
  /** why this sample starts where it does (the break that opened its chain), and anything else notable */
  diagnostics: DriftDiagnostic[];
}
