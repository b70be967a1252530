import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../core/json/canonical-json.js';

/** The same value with the keys of every object inserted in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((key) => [key, reversedKeys((value as Record<string, unknown>)[key])]),
  );
}

describe('canonicalJson', () => {
  it('sorts the keys of every object, at every depth, inside arrays too', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 3 } })).toBe('{"a":{"c":3,"d":[{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: { c: 3, d: [{ y: 2, z: 1 }] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: 3 } }));
  });

  it('sorts integer-like keys as text, not first in numeric order as an object enumerates them', () => {
    expect(canonicalJson({ a: 3, 10: 1, 9: 2, '-1': 4 })).toBe('{"-1":4,"10":1,"9":2,"a":3}');
  });

  it('sorts keys by UTF-16 code units and writes strings as JSON.stringify does (non-ASCII kept, controls and lone surrogates escaped)', () => {
    // 'z' < 'é' (U+00E9) < '😀' (U+D83D U+DE00) < 'ﬀ' (U+FB00): code point order would put the emoji last
    expect(canonicalJson({ ﬀ: 1, '😀': 2, é: 3, z: 4 })).toBe('{"z":4,"é":3,"😀":2,"ﬀ":1}');
    expect(canonicalJson(['日本語', 'a"b\\c', '\u0007\n', '\ud800'])).toBe('["日本語","a\\"b\\\\c","\\u0007\\n","\\ud800"]');
  });

  it('writes numbers as JSON.stringify prints them', () => {
    const numbers = [0, -0, 1.5e-7, 0.1 + 0.2, 1e21, -123456789.125, 2 ** 53 + 2, Number.MAX_VALUE, Number.NaN, Infinity];
    expect(canonicalJson(numbers)).toBe(JSON.stringify(numbers));
    expect(canonicalJson(numbers)).toBe('[0,0,1.5e-7,0.30000000000000004,1e+21,-123456789.125,9007199254740994,1.7976931348623157e+308,null,null]');
  });

  it('leaves out undefined members, writes undefined array elements and an undefined value as null', () => {
    expect(canonicalJson({ b: undefined, a: [undefined, null] })).toBe('{"a":[null,null]}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(null)).toBe('null');
  });

  it('reads back as the same JSON value, whatever order the keys were inserted in', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(reversedKeys(value))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });
});
