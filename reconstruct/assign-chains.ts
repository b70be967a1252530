import type { CallRow } from '../store/index.js';
import { rangeEquals, sharedPrefixLength, startsWithSequence } from '../core/token-ids/shared-prefix-length.js';

/** A call with prompt ids, in session order. Only `mergeable` ones join chains; the others are compared with. */
export interface ChainEntry {
  call: CallRow;
  prompt: Int32Array;
  completion: Int32Array | null;
  mergeable: boolean;
}

/** A mergeable call that could not join any chain: it opens a new one. */
export interface ChainBreak {
  /** the entry that opened the chain */
  entry: number;
  /** the earlier entry sharing the longest prefix with its prompt (latest on a tie); null when none shares any */
  against: number | null;
  /** ids shared with `against`'s prompt + completion */
  position: number;
}

export interface ChainAssignment {
  /** entry indices per chain, in order of each chain's first call */
  chains: number[][];
  /** the chain of each entry, -1 for entries that are not mergeable */
  chainOf: Int32Array;
  breaks: ChainBreak[];
}

/**
 * The merge rule. Each mergeable call, in session order, joins the chain whose tip (its last call's prompt +
 * completion) is an exact prefix of its prompt: the longest such tip, the latest on a tie. It opens a new chain
 * instead when none fits, or when its prompt goes deeper into some other call than into that tip (it continues a
 * flagged or failed call, or re-renders the turn of another chain's tip): merging there would train across a
 * mismatch. Every new chain after the first candidate appeared is a break, classified later.
 *
 * @example
 * const { chains, breaks } = assignChains(entries);
 */
export function assignChains(entries: readonly ChainEntry[]): ChainAssignment {
  const chains: number[][] = [];
  const tips: number[] = [];
  const outsiders: number[] = [];
  const chainOf = new Int32Array(entries.length).fill(-1);
  const breaks: ChainBreak[] = [];
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as ChainEntry;
    if (!entry.mergeable) {
      outsiders.push(index);
      continue;
    }
    const chain = findChainToJoin(entries, entry, tips, outsiders);
    if (chain !== -1) {
      (chains[chain] as number[]).push(index);
      tips[chain] = index;
      chainOf[index] = chain;
      continue;
    }
    if (tips.length > 0 || outsiders.length > 0) breaks.push(closestEntry(entries, index, tips, outsiders));
    chainOf[index] = chains.length;
    chains.push([index]);
    tips.push(index);
  }
  return { chains, chainOf, breaks };
}

function findChainToJoin(entries: readonly ChainEntry[], entry: ChainEntry, tips: readonly number[], outsiders: readonly number[]): number {
  let best = -1;
  let bestLength = -1;
  for (let chain = 0; chain < tips.length; chain++) {
    const tip = entries[tips[chain] as number] as ChainEntry;
    const length = tip.prompt.length + (tip.completion?.length ?? 0);
    if (length < bestLength || (length === bestLength && (tips[chain] as number) < (tips[best] as number))) continue;
    if (!endsAlike(entry.prompt, tip, length)) continue;
    if (!startsWithSequence(entry.prompt, tip.prompt, tip.completion)) continue;
    best = chain;
    bestLength = length;
  }
  if (best === -1) return -1;
  for (let chain = 0; chain < tips.length; chain++) {
    if (chain !== best && goesDeeper(entry.prompt, entries[tips[chain] as number] as ChainEntry, bestLength)) return -1;
  }
  for (const outsider of outsiders) {
    if (continuesOutsider(entry.prompt, entries[outsider] as ChainEntry, bestLength)) return -1;
  }
  return best;
}

/** Cheap reject before the memcmp: the last id of the tip must sit at the same place in the prompt. */
function endsAlike(prompt: Int32Array, tip: ChainEntry, length: number): boolean {
  if (prompt.length < length || length === 0) return length === 0;
  const last = tip.completion !== null && tip.completion.length > 0 ? tip.completion[tip.completion.length - 1] : tip.prompt[tip.prompt.length - 1];
  return prompt[length - 1] === last;
}

/** True when the prompt shares more than `depth` ids with the other entry's prompt + completion. */
function goesDeeper(prompt: Int32Array, other: ChainEntry, depth: number): boolean {
  const otherLength = other.prompt.length + (other.completion?.length ?? 0);
  if (otherLength <= depth || prompt.length <= depth) return false;
  const otherId = depth < other.prompt.length ? other.prompt[depth] : other.completion?.[depth - other.prompt.length];
  if (prompt[depth] !== otherId) return false;
  return sharedPrefixLength(prompt, other.prompt, other.completion) > depth;
}

/**
 * True when the prompt carries a failed or flagged call's whole prompt and goes on past it (so it carries that
 * call's reply in some form) further than the chosen tip: the chain cannot take that reply as plain context.
 * An identical resend of a failed call's prompt (a retry) does not count.
 */
function continuesOutsider(prompt: Int32Array, outsider: ChainEntry, depth: number): boolean {
  if (prompt.length <= outsider.prompt.length) return false;
  if (!rangeEquals(prompt, 0, outsider.prompt, 0, outsider.prompt.length)) return false;
  return sharedPrefixLength(prompt, outsider.prompt, outsider.completion) > depth;
}

/**
 * The earlier call a break is told against: the one whose prompt + completion the new prompt shares most of (latest
 * on a tie). A failed or flagged call counts only where the new prompt goes into its reply: an identical resend of a
 * failed call is a retry, and the break it shows (if any) lies in what both share with the chains, so it is told
 * against those. Only when nothing else shares a token is it told against that failed call.
 */
function closestEntry(entries: readonly ChainEntry[], index: number, tips: readonly number[], outsiders: readonly number[]): ChainBreak {
  const prompt = (entries[index] as ChainEntry).prompt;
  const continued = outsiders.filter(
    (outsider) => sharedWith(prompt, entries[outsider] as ChainEntry) > (entries[outsider] as ChainEntry).prompt.length,
  );
  const closest = mostShared(entries, prompt, [...tips, ...continued]);
  const chosen = closest.position > 0 ? closest : mostShared(entries, prompt, outsiders);
  return { entry: index, ...chosen };
}

function mostShared(entries: readonly ChainEntry[], prompt: Int32Array, candidates: readonly number[]): { against: number | null; position: number } {
  let against: number | null = null;
  let position = 0;
  for (const candidate of candidates) {
    const shared = sharedWith(prompt, entries[candidate] as ChainEntry);
    if (shared > position || (shared === position && shared > 0 && against !== null && candidate > against)) {
      against = candidate;
      position = shared;
    }
  }
  return { against, position };
}

function sharedWith(prompt: Int32Array, other: ChainEntry): number {
  return sharedPrefixLength(prompt, other.prompt, other.completion);
}
