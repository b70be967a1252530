import { describe, expect, it } from 'vitest';
import { packInt32 } from '../../store/pack-tokens.js';
import type { StoredPromptLink } from '../../store/prompt-chain.js';
import { createSessionArena } from '../../store/session-arena.js';

const packed = (ids: number[]): Buffer => packInt32(Int32Array.from(ids));
const link = (parentId: string | null, prefixLength: number, tail: number[]): StoredPromptLink => ({ parentId, prefixLength, tail: packed(tail) });
const ids = (array: Int32Array | null): number[] | null => (array === null ? null : Array.from(array));

function noDecode(): Int32Array {
  throw new Error('decode should not be needed');
}

describe('session arena (the bulk read of a session, store/session-arena.ts)', () => {
  it('two calls that both extend the end of one call each get that call then their own ids, never the other', () => {
    const arena = createSessionArena(noDecode);
    const first = arena.place({ id: 'a', link: link(null, 0, [1, 2, 3]), completion: packed([4]) });
    const left = arena.place({ id: 'b', link: link('a', 4, [5]), completion: packed([6]) });
    // 'c' extends 'a' exactly where 'b' did: 'b' already appended after 'a', so 'c' cannot append there
    const right = arena.place({ id: 'c', link: link('a', 4, [7]), completion: packed([8]) });
    const later = arena.place({ id: 'd', link: link('b', 6, [9]), completion: null });
    expect([ids(first.prompt), ids(first.completion)]).toEqual([[1, 2, 3], [4]]);
    expect([ids(left.prompt), ids(left.completion)]).toEqual([[1, 2, 3, 4, 5], [6]]);
    expect([ids(right.prompt), ids(right.completion)]).toEqual([[1, 2, 3, 4, 7], [8]]);
    expect([ids(later.prompt), ids(later.completion)]).toEqual([[1, 2, 3, 4, 5, 6, 9], null]);
    // 'a' got an array of its own size; 'b' grew it (doubling) and 'd' extends 'b' in place; 'c' got its own
    expect(later.prompt?.buffer).toBe(left.prompt?.buffer);
    expect(right.prompt?.buffer).not.toBe(left.prompt?.buffer);
  });

  it('views handed out before the arena grows keep their ids; calls after it see the same ids in the new array', () => {
    const arena = createSessionArena(noDecode);
    const placed = [arena.place({ id: 'c0', link: link(null, 0, [0]), completion: packed([1]) })];
    const expected = [[0, 1]];
    for (let turn = 1; turn < 40; turn++) {
      const previous = expected[turn - 1] as number[];
      const tail = Array.from({ length: 500 }, (_, index) => turn * 1_000 + index);
      placed.push(arena.place({ id: `c${turn}`, link: link(`c${turn - 1}`, previous.length, tail), completion: packed([-turn]) }));
      expected.push([...previous, ...tail, -turn]);
    }
    expect(placed.map((call) => [...(ids(call.prompt) ?? []), ...(ids(call.completion) ?? [])])).toEqual(expected);
    expect(new Set(placed.map((call) => call.prompt?.buffer)).size).toBeGreaterThan(1);
  });

  it('a parent not placed yet (it finished after its child began) is rebuilt by the chain decoder, and its child extends that', () => {
    const asked: StoredPromptLink[] = [];
    const arena = createSessionArena((stored) => {
      asked.push(stored);
      return Int32Array.of(10, 11, 12);
    });
    const child = arena.place({ id: 'x', link: link('later', 2, [12]), completion: packed([13]) });
    const grandchild = arena.place({ id: 'y', link: link('x', 4, [14]), completion: null });
    expect(asked.map((stored) => stored.parentId)).toEqual(['later']);
    expect([ids(child.prompt), ids(child.completion), ids(grandchild.prompt)]).toEqual([[10, 11, 12], [13], [10, 11, 12, 13, 14]]);
  });

  it('a prefix longer than the parent, or one with no parent named, is a corrupt store', () => {
    const arena = createSessionArena((stored) => {
      throw new Error(`asked to decode ${String(stored.parentId)}`);
    });
    arena.place({ id: 'a', link: link(null, 0, [1, 2]), completion: null });
    expect(() => arena.place({ id: 'b', link: link('a', 3, []), completion: null })).toThrow(/shorter than its child's prefix/);
    expect(() => arena.place({ id: 'c', link: link(null, 2, []), completion: null })).toThrow(/asked to decode null/);
  });

  it('a call that starts a line costs an array of its own ids, not more (a session of many small one-off calls stays small)', () => {
    const arena = createSessionArena(noDecode);
    for (let index = 0; index < 100; index++) {
      const call = arena.place({ id: `one-off-${index}`, link: link(null, 0, [index, 1, 2]), completion: packed([3]) });
      expect(call.prompt?.buffer.byteLength).toBe(4 * 4);
    }
  });

  it('a call without prompt ids gets its completion alone', () => {
    const arena = createSessionArena(noDecode);
    const call = arena.place({ id: 'n', link: null, completion: packed([7, 8]) });
    expect([call.prompt, ids(call.completion)]).toEqual([null, [7, 8]]);
  });
});
