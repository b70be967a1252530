import type { CallRow } from '../store/index.js';
import { untrustedFlags } from '../store/types.js';
import { isCutCompletion } from './classify-call.js';
import type { ChatTurn } from './read-chat-turn.js';
import type { DriftTokenizer } from './reconstruct-options.js';
import type { DriftKind } from './sample.js';

/** One side of a break: a call and the ids reconstruction used for it. */
export interface BreakSide {
  call: CallRow;
  prompt: Int32Array;
  completion: Int32Array | null;
  /** false for failed or flagged calls, which never join chains */
  mergeable: boolean;
}

/** What is known about one chain break. */
export interface DriftEvidence {
  opened: BreakSide;
  /** the earlier call sharing the longest prefix, null when none shares any */
  against: BreakSide | null;
  /** ids shared with `against`'s prompt + completion */
  position: number;
  /** true when `against`'s chain gets another call after `opened` (so `opened` went beside it, not instead) */
  againstContinuesLater: boolean;
  /** the call's request and reply for comparison by meaning, null when not a chat call; read lazily */
  readTurn(call: CallRow): ChatTurn | null;
  tokenizer?: DriftTokenizer;
}

/** A drift kind and the reason, in words, that picked it. */
export interface DriftVerdict {
  kind: DriftKind;
  reason: string;
}

/**
 * Names the cause of a break (docs/reconstruct.md, "Drift kinds"). The rules, in order: a tokenizer that decodes
 * both sides to the same text means `retokenized`; carrying on a failed, flagged or max-tokens call means
 * `truncated-completion`; the rest is told apart by comparing the two requests by meaning (chat bodies), and by
 * where the ids part when there are no chat bodies.
 *
 * @example
 * classifyDrift(evidence); // { kind: 'template-rerender', reason: 'same history and reply as #3, other tokens ...' }
 */
export function classifyDrift(evidence: DriftEvidence): DriftVerdict {
  const { opened, against, position } = evidence;
  if (against === null) return { kind: 'parallel-branch', reason: 'shares no token with any earlier call: a separate conversation' };
  const promptLength = against.prompt.length;
  const sequenceLength = promptLength + (against.completion?.length ?? 0);
  if (evidence.tokenizer !== undefined && decodesAlike(evidence.tokenizer, opened.prompt, against, position)) {
    return { kind: 'retokenized', reason: 'the same text came back as other token ids' };
  }
  if (position >= promptLength && opened.prompt.length > promptLength) {
    const untrusted = untrustedFlags(against.call.flags);
    if (untrusted.length > 0)
      return {
        kind: 'truncated-completion',
        reason: `its recorded completion is flagged ${untrusted.join(', ')}, so it cannot be carried on`,
      };
    if (isCutCompletion(against.call))
      return { kind: 'truncated-completion', reason: `its completion was cut (${cutCause(against.call)}), so it cannot be carried on` };
  }
  if (position >= sequenceLength) return { kind: 'parallel-branch', reason: 'forks after that turn, from the middle of its chain' };
  if (position === promptLength && opened.prompt.length === promptLength)
    return { kind: 'parallel-branch', reason: 'the same prompt again: a retry or a sibling' };
  const openedTurn = evidence.readTurn(opened.call);
  const againstTurn = openedTurn === null ? null : evidence.readTurn(against.call);
  if (openedTurn !== null && againstTurn !== null && againstTurn.reply !== null) return compareTurns(openedTurn, againstTurn, evidence);
  return compareIds(evidence, promptLength);
}

function compareTurns(opened: ChatTurn, against: ChatTurn, evidence: DriftEvidence): DriftVerdict {
  if (opened.tools !== against.tools) return { kind: 'history-edited', reason: 'the tool definitions changed' };
  if (opened.templateOptions !== against.templateOptions) return { kind: 'template-rerender', reason: 'chat_template_kwargs changed' };
  const earlier = [...against.messages, against.reply as string];
  const shared = sharedMessageCount(opened.messages, earlier);
  const historyLength = against.messages.length;
  if (shared > historyLength)
    return {
      kind: 'template-rerender',
      reason: 'same history and reply by meaning, rendered into other tokens (e.g. reasoning dropped, arguments re-printed)',
    };
  if (shared === historyLength) {
    if (opened.messages.length > shared && roleOf(opened.messages[shared]) === 'assistant') {
      return { kind: 'history-edited', reason: 'sends back another reply than the one sampled' };
    }
    return { kind: 'parallel-branch', reason: 'repeats that history without its reply: a retry or a sibling' };
  }
  const later = new Set(earlier.slice(shared + 1));
  if (opened.messages.slice(shared).some((message) => later.has(message))) {
    return { kind: 'history-edited', reason: `message ${shared} changed or went missing while later ones stayed (truncation or an edit)` };
  }
  if (shared === 0) return { kind: 'parallel-branch', reason: 'starts from another first message: a sub-agent or another conversation' };
  if (evidence.againstContinuesLater)
    return { kind: 'parallel-branch', reason: `shares ${shared} messages, then goes its own way while that chain goes on (a sub-agent or branch)` };
  return { kind: 'history-edited', reason: `replaces the history from message ${shared} on and that chain stops (compaction or a rewrite)` };
}

function compareIds(evidence: DriftEvidence, promptLength: number): DriftVerdict {
  const { position } = evidence;
  if (position < promptLength) {
    if (position > 0 && !evidence.againstContinuesLater)
      return { kind: 'history-edited', reason: 'diverges inside that prompt and that chain stops (no chat bodies to compare)' };
    return { kind: 'parallel-branch', reason: 'diverges inside that prompt while that chain goes on (no chat bodies to compare)' };
  }
  return {
    kind: 'template-rerender',
    reason: 'that turn came back as other ids (no chat bodies; without a tokenizer a retokenization reads the same)',
  };
}

/**
 * True when the opened prompt reads, as text, exactly like the earlier call's prompt + completion from a little
 * before the first differing id: the same text tokenized differently.
 */
function decodesAlike(tokenizer: DriftTokenizer, prompt: Int32Array, against: BreakSide, position: number): boolean {
  const start = Math.max(0, position - 8);
  const sequence = against.completion === null ? against.prompt : concat(against.prompt, against.completion);
  if (sequence.length <= position) return false;
  const expected = tokenizer.decode(Array.from(sequence.subarray(start)));
  // every id stands for at least one byte, so the same text cannot need more ids than it has bytes
  const end = Math.min(prompt.length, start + Buffer.byteLength(expected) + 4);
  if (end <= start) return false;
  const actual = tokenizer.decode(Array.from(prompt.subarray(start, end)));
  return expected.length > 0 && actual.startsWith(expected);
}

function sharedMessageCount(left: readonly string[], right: readonly string[]): number {
  let shared = 0;
  while (shared < left.length && shared < right.length && left[shared] === right[shared]) shared++;
  return shared;
}

function roleOf(message: string | undefined): unknown {
  return message === undefined ? undefined : (JSON.parse(message) as { role?: unknown }).role;
}

function cutCause(call: CallRow): string {
  return call.status === 'ok' ? `finish_reason ${call.finishReason}` : call.status;
}

function concat(left: Int32Array, right: Int32Array): Int32Array {
  const joined = new Int32Array(left.length + right.length);
  joined.set(left, 0);
  joined.set(right, left.length);
  return joined;
}
