import { TokentapError } from '../../core/errors/tokentap-error.js';
import { computeAdvantages, resolveAdvantageOptions } from '../../export/compute-advantages.js';
import type { Store } from '../../store/index.js';
import type { GroupDetail, GroupListResponse } from '../viewer-api.js';
import type { SessionDriftCache } from './session-drift.js';
import { toListItems } from './session-list.js';
import type { TokenTexts } from './token-texts.js';

/** Tokens of a rollout's own shown from where it leaves the group's shared prefix. */
const DIVERGENCE_TOKENS = 24;
/** The most sessions a group page reads (a GRPO group is a handful to a few hundred rollouts). */
const MAX_ROLLOUTS = 1000;

/** GET /ui/api/groups: every group sessions name, the most recently active first. @example listGroups(store).groups[0]?.rewardMean */
export function listGroups(store: Store): GroupListResponse {
  return { groups: store.listGroupSummaries() };
}

/**
 * GET /ui/api/groups/:groupId: its rollouts (oldest first) with their rewards and advantages under the export's
 * default estimator (export/compute-advantages.ts), and where each one's first merge sample leaves the prefix every
 * rollout's first sample shares; 404 TT_GROUP_NOT_FOUND when no session names the group.
 *
 * @example readGroupDetail(store, drift, texts, 'task-7').rollouts.map((rollout) => rollout.advantage)
 */
export function readGroupDetail(store: Store, driftCache: SessionDriftCache, texts: TokenTexts | null, groupId: string): GroupDetail {
  const rows = store.listSessions({ groupId, orderBy: 'createdAt', order: 'asc', limit: MAX_ROLLOUTS });
  if (rows.length === 0) throw new TokentapError('TT_GROUP_NOT_FOUND', { message: `No session names the group ${JSON.stringify(groupId)}` });
  const advantage = resolveAdvantageOptions({});
  const advantages = computeAdvantages(
    rows.map((row) => row.reward),
    advantage,
  );
  // one reconstruction per rollout: its first sample here, its drift for the list item
  const firsts = rows.map((row) => {
    const report = driftCache.report(row.id);
    driftCache.remember(row, report);
    return report.samples[0];
  });
  const items = toListItems(store, driftCache, rows);
  const firstSamples = firsts.map((sample) => sample?.tokens ?? new Int32Array());
  const sharedPrefix = commonPrefix(firstSamples);
  const closest = closestRollouts(firstSamples);
  return {
    groupId,
    estimator: advantage.estimator ?? 'grpo',
    sharedPrefix,
    rollouts: rows.map((row, index) => {
      const tokens = firstSamples[index] as Int32Array;
      const diverges = tokens.length > sharedPrefix;
      const excerpt = diverges ? Array.from(tokens.subarray(sharedPrefix, sharedPrefix + DIVERGENCE_TOKENS)) : null;
      return {
        session: items[index]!,
        reward: row.reward,
        advantage: advantages[index] ?? null,
        tokens: tokens.length,
        trainedTokens: countTrained(firsts[index]?.lossMask),
        divergesAt: diverges ? sharedPrefix : null,
        divergence: excerpt === null ? null : { tokenIds: excerpt, text: texts === null ? null : texts.of(excerpt).join('') },
        closest: closest[index] === null ? null : { sessionId: rows[closest[index]!.index]!.id, sharedTokens: closest[index]!.shared },
      };
    }),
  };
}

function countTrained(mask: Uint8Array | undefined): number {
  let trained = 0;
  if (mask !== undefined) for (const value of mask) trained += value;
  return trained;
}

/**
 * For each sequence, the other one sharing the longest prefix with it, and that length. In lexicographic order the
 * longest prefix a sequence shares with any other is shared with a neighbour, so this is a sort and one pass, not
 * every pair (a group may hold a thousand rollouts of 100k tokens).
 */
function closestRollouts(sequences: readonly Int32Array[]): Array<{ index: number; shared: number } | null> {
  const order = sequences.map((_, index) => index).sort((a, b) => compareTokens(sequences[a]!, sequences[b]!) || a - b);
  const closest: Array<{ index: number; shared: number } | null> = sequences.map(() => null);
  for (let rank = 0; rank < order.length; rank++) {
    const self = order[rank]!;
    for (const neighbour of [order[rank - 1], order[rank + 1]]) {
      if (neighbour === undefined) continue;
      const shared = prefixLength(sequences[self]!, sequences[neighbour]!);
      const best = closest[self] ?? null;
      if (best === null || shared > best.shared || (shared === best.shared && neighbour < best.index)) closest[self] = { index: neighbour, shared };
    }
  }
  return closest;
}

function compareTokens(a: Int32Array, b: Int32Array): number {
  const shared = prefixLength(a, b);
  if (shared < a.length && shared < b.length) return a[shared]! - b[shared]!;
  return a.length - b.length;
}

function prefixLength(a: Int32Array, b: Int32Array): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a[index] === b[index]) index++;
  return index;
}

/** The length every sequence shares from the start (0 for none). */
function commonPrefix(sequences: readonly Int32Array[]): number {
  const first = sequences[0];
  if (first === undefined) return 0;
  let shared = first.length;
  for (const other of sequences.slice(1)) {
    const limit = Math.min(shared, other.length);
    let index = 0;
    while (index < limit && first[index] === other[index]) index++;
    shared = index;
  }
  return shared;
}
