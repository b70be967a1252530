import { int32Count, unpackInt32, unpackInt32Into } from './pack-tokens.js';
import type { StoredPromptLink } from './prompt-chain.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * Reads a whole session's prompts in one pass without copying shared prefixes. An agent's next prompt is usually
 * its previous call's prompt and completion plus a new turn, and the store keeps it as exactly that (parent, prefix
 * length, tail: prompt-delta.ts). So the calls of one line are laid end to end in one growing array (an arena):
 * a call that extends the end of an arena appends its tail and completion there, and its prompt and completion are
 * views into it. Each id is then copied once, and comparing a prompt with the call it extends compares a memory
 * range with itself (core/token-ids/shared-prefix-length.ts answers that without reading it). Only a call that leaves
 * its parent midway (drift, a retry, a branch) starts a new arena, with a copy of the prefix it shares.
 *
 * The arrays handed out are views into shared memory: read-only by contract, as every call row's ids are.
 */

/** The stored columns one call's ids are rebuilt from. */
export interface StoredCallIds {
  id: string;
  link: StoredPromptLink | null;
  completion: Buffer | null;
}

export interface CallIds {
  prompt: Int32Array | null;
  completion: Int32Array | null;
}

interface Arena {
  ids: Int32Array;
  used: number;
}

/** Where a call's base sequence (prompt ++ completion) lies: the first `end` ids of `arena`. */
interface PlacedBase {
  arena: Arena;
  end: number;
}

/**
 * Rebuilds the ids of a session's calls read in seq order. `decode` rebuilds a prompt whose parent is not among the
 * calls placed so far (a parent that finished after its child began), walking its chain.
 *
 * @example
 * const ids = createSessionArena((link) => delta.decode(link));
 * for (const record of records) rows.push(ids.place({ id: record.id, link, completion: record.completion_token_ids }));
 */
export function createSessionArena(decode: (link: StoredPromptLink) => Int32Array): { place(call: StoredCallIds): CallIds } {
  const placed = new Map<string, PlacedBase>();

  function place(call: StoredCallIds): CallIds {
    const { link } = call;
    if (link === null) return { prompt: null, completion: call.completion === null ? null : unpackInt32(call.completion) };
    const tailLength = int32Count(link.tail);
    const completionLength = call.completion === null ? 0 : int32Count(call.completion);
    const arena = arenaFor(link, tailLength + completionLength);
    const promptEnd = arena.used;
    if (call.completion !== null) arena.used += unpackInt32Into(call.completion, arena.ids, arena.used);
    placed.set(call.id, { arena, end: arena.used });
    return {
      prompt: arena.ids.subarray(0, promptEnd),
      completion: call.completion === null ? null : arena.ids.subarray(promptEnd, promptEnd + completionLength),
    };
  }

  /** The arena the call's prompt now ends, filled up to its prompt, with room for `more` ids beyond its tail. */
  function arenaFor(link: StoredPromptLink, more: number): Arena {
    const parent = link.prefixLength === 0 || link.parentId === null ? undefined : placed.get(link.parentId);
    if (link.prefixLength > 0 && parent === undefined) {
      const prompt = decode(link);
      const arena = newArena(prompt.length + more);
      arena.ids.set(prompt);
      arena.used = prompt.length;
      return arena;
    }
    let arena: Arena;
    if (parent === undefined) {
      arena = newArena(more);
    } else if (parent.end < link.prefixLength) {
      throw new TokentapError('STORE_CORRUPT', { message: `call ${link.parentId} is shorter than its child's prefix` });
    } else if (parent.end === link.prefixLength && parent.arena.used === parent.end) {
      // the call extends the end of its parent's line: append in place
      arena = parent.arena;
      reserve(arena, more);
    } else {
      arena = newArena(link.prefixLength + more);
      arena.ids.set(parent.arena.ids.subarray(0, link.prefixLength));
      arena.used = link.prefixLength;
    }
    arena.used += unpackInt32Into(link.tail, arena.ids, arena.used);
    return arena;
  }

  return { place };
}

/**
 * An arena the size of what it first holds: a call that no later call extends (a one-off request, a retry, a
 * sub-agent's single turn) costs what its own ids cost, as a standalone array would; a line that goes on doubles it.
 */
function newArena(ids: number): Arena {
  return { ids: new Int32Array(ids), used: 0 };
}

/**
 * Makes room for `more` ids. A grown arena is a new array holding the same ids: views handed out earlier keep the
 * old one, equal in value, so correctness never depends on which array a view sits in.
 */
function reserve(arena: Arena, more: number): void {
  const needed = arena.used + more;
  if (needed <= arena.ids.length) return;
  const grown = new Int32Array(Math.max(needed, arena.ids.length * 2));
  grown.set(arena.ids.subarray(0, arena.used));
  arena.ids = grown;
}
