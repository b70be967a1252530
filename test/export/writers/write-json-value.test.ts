import { describe, expect, it } from 'vitest';
import { invalidExportValue } from '../../../export/writers/invalid-export-value.js';
import { encodeJsonValue } from '../../../export/writers/write-json-value.js';

describe('encodeJsonValue', () => {
  it('writes plain JSON values exactly as JSON.stringify does', () => {
    const value = { b: 1, a: [1, 'two', null, true, undefined, { '': -0, 'ü"\n': 1e21, x: undefined, f: () => 1 }], when: new Date(0), big: 1.5e-7 };
    expect(encodeJsonValue(value)).toBe(JSON.stringify(value));
  });

  it('writes typed arrays as arrays of numbers and bigints as integers, where JSON.stringify writes objects or throws', () => {
    expect(
      encodeJsonValue({
        ids: Int32Array.of(-1, 2),
        mask: Uint8Array.of(0, 255),
        wide: Float64Array.of(0.1),
        step: 2n ** 64n,
        longs: BigInt64Array.of(-5n),
      }),
    ).toBe('{"ids":[-1,2],"mask":[0,255],"wide":[0.1],"step":18446744073709551616,"longs":[-5]}');
  });

  it('refuses NaN and Infinity with the path to them', () => {
    expect(() => encodeJsonValue({ loss_fn_inputs: { weights: { data: Float32Array.of(1, Number.NaN) } } })).toThrow(
      invalidExportValue('loss_fn_inputs.weights.data[1]', 'NaN is not a finite number (JSON has no NaN or Infinity)'),
    );
    expect(() => encodeJsonValue([{ a: Float64Array.of(Number.NEGATIVE_INFINITY) }])).toThrow('column [0].a[0]: -Infinity is not a finite number');
  });

  it('refuses values JSON cannot hold instead of dropping them silently', () => {
    expect(() => encodeJsonValue(Symbol('s'))).toThrow('a symbol is not a JSON value');
    expect(() => encodeJsonValue(new DataView(new ArrayBuffer(1)))).toThrow('a DataView is not a JSON value');
  });
});
