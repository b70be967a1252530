/** A deterministic random source: floats in [0, 1), integers and picks. */
export interface SeededRandom {
  next(): number;
  /** an integer in [minimum, maximum] */
  integer(minimum: number, maximum: number): number;
  pick<T>(items: readonly T[]): T;
  /** true with the given probability */
  chance(probability: number): boolean;
}

/**
 * mulberry32: tiny, fast and good enough for simulated text; the same seed always gives the same sequence.
 *
 * @example
 * const random = createSeededRandom(hashNumbers([seed, promptHash]));
 * random.integer(1, 6);
 */
export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    integer: (minimum, maximum) => minimum + Math.floor(next() * (maximum - minimum + 1)),
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
    chance: (probability) => next() < probability,
  };
}

/**
 * FNV-1a over 32-bit integers: a stable hash for seeds, prompt ids and positions.
 *
 * @example
 * hashNumbers([seed, position, tokenId]);
 */
export function hashNumbers(numbers: ArrayLike<number>, start = 0x811c9dc5): number {
  let hash = start >>> 0;
  for (let index = 0; index < numbers.length; index++) {
    let value = (numbers[index] ?? 0) | 0;
    for (let byte = 0; byte < 4; byte++) {
      hash ^= value & 0xff;
      hash = Math.imul(hash, 0x01000193) >>> 0;
      value >>>= 8;
    }
  }
  return hash;
}

/**
 * A float in (0, 1) fixed by a few integers, with a final avalanche so neighbouring inputs differ widely.
 *
 * @example
 * unitFromNumbers(seed, promptHash, position); // 0.7312...
 */
export function unitFromNumbers(...numbers: number[]): number {
  let hash = hashNumbers(numbers);
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35) >>> 0;
  hash ^= hash >>> 16;
  return ((hash >>> 0) + 0.5) / 4294967296;
}
