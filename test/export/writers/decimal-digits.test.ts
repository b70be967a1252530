import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFloat32, writeInteger } from '../../../export/writers/decimal-digits.js';
import { arbitraryFloat32s } from './writer-fixtures.js';

/** The shortest decimal by brute force: the fewest significant digits that read back as the float32. */
function shortestByToPrecision(value: number): string {
  if (value === 0) return '0';
  for (let precision = 1; precision <= 9; precision += 1) {
    const candidate = Number(value.toPrecision(precision));
    if (Math.fround(candidate) === value) return String(candidate);
  }
  return String(value);
}

describe('writeInteger', () => {
  it.each([0, 7, 9, 10, 99, 100, 101, 151_642, -1, -10, -2_147_483_648, 2_147_483_647, 4_294_967_295])('writes %d as String does', (value) => {
    const bytes = new Uint8Array(16);
    const end = writeInteger(bytes, 2, value);
    expect(Buffer.from(bytes.subarray(2, end)).toString('latin1')).toBe(String(value));
  });
});

describe('formatFloat32', () => {
  it('gives the shortest decimal that reads back as the same float32, laid out as Number#toString', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = formatFloat32(value === 0 ? 0 : value);
        expect(Math.fround(Number(text))).toBe(value === 0 ? 0 : value);
        expect(text).toBe(shortestByToPrecision(value === 0 ? 0 : value));
      }),
      { numRuns: 10_000 },
    );
  });

  it('matches the brute-force shortest decimal on every exponent, subnormals and extremes included', () => {
    const values = [...arbitraryFloat32s(10_000, 9), 1e-45, 1.17549435e-38, 3.4028234663852886e38, 1e21, 1e-7, 16777217, 2 ** 32].map(Math.fround);
    for (const value of values) {
      expect(formatFloat32(value), String(value)).toBe(shortestByToPrecision(value));
      expect(formatFloat32(-value), String(-value)).toBe(shortestByToPrecision(-value));
    }
  });

  it('writes typical logprobs in 9 significant digits at most, where the widened double needs 17', () => {
    expect(formatFloat32(Math.fround(-0.0012345678))).toBe('-0.0012345678');
    expect(String(Math.fround(-0.0012345678))).toBe('-0.0012345678405836225');
    expect(formatFloat32(Math.fround(-0.1))).toBe('-0.1');
    expect(formatFloat32(Math.fround(2.5e-7))).toBe('2.5e-7');
    expect(formatFloat32(Math.fround(123456789))).toBe('123456790');
  });
});
