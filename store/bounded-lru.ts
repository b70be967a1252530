/**
 * Least recently used entries within a budget of units (ids, characters), for caches of immutable facts: an entry
 * is never stale, only ever missing, which costs speed, not correctness.
 *
 * @example
 * const texts = new BoundedLru<string>(1_000_000, (text) => text.length);
 * texts.set(hash, text);
 */
export class BoundedLru<V> {
  readonly maxUnits: number;
  readonly #sizeOf: (value: V) => number;
  #entries = new Map<string, V>();
  #heldUnits = 0;

  constructor(maxUnits: number, sizeOf: (value: V) => number) {
    this.maxUnits = maxUnits;
    this.#sizeOf = sizeOf;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // Map keeps insertion order: re-inserting marks the entry most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Caches a value the caller will not mutate afterwards (one larger than the whole budget is not kept). */
  set(key: string, value: V): void {
    this.delete(key);
    const size = this.#sizeOf(value);
    if (size > this.maxUnits) return;
    this.#entries.set(key, value);
    this.#heldUnits += size;
    for (const [oldestKey] of this.#entries) {
      if (this.#heldUnits <= this.maxUnits) break;
      this.delete(oldestKey);
    }
  }

  delete(key: string): void {
    const value = this.#entries.get(key);
    if (value === undefined) return;
    this.#entries.delete(key);
    this.#heldUnits -= this.#sizeOf(value);
  }

  clear(): void {
    this.#entries.clear();
    this.#heldUnits = 0;
  }
}
