import { describe, expect, it } from 'vitest';
import { BoundedLru } from '../../store/bounded-lru.js';

describe('BoundedLru (the store caches of sequences and blob texts)', () => {
  it('evicts the least recently used entries past its budget, counts replaced entries once, and skips one over budget', () => {
    const cache = new BoundedLru<string>(10, (text) => text.length);
    cache.set('a', 'aaaa');
    cache.set('b', 'bbbb');
    expect(cache.get('a')).toBe('aaaa'); // now b is the oldest
    cache.set('c', 'cccc'); // 12 > 10: b goes
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['aaaa', undefined, 'cccc']);
    cache.set('a', 'A'); // replacing frees the old size: 1 + 4
    cache.set('d', 'ddddd'); // 10: all fit
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual(['A', 'cccc', 'ddddd']);
    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('d')).toBe('ddddd');
    cache.delete('d');
    cache.clear();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([undefined, undefined, undefined]);
  });
});
