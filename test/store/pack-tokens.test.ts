import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packFloat32, packInt32, unpackFloat32, unpackInt32 } from '../../store/pack-tokens.js';

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });

describe('packed token arrays', () => {
  it('Int32 ids pack to 4 little-endian bytes each', () => {
    expect([...packInt32(Int32Array.of(1, -2, 151645))]).toEqual([1, 0, 0, 0, 254, 255, 255, 255, 0x5d, 0x50, 0x02, 0]);
  });

  it('ids and logprobs unpack exactly from a Buffer at any byte offset (driver Buffers are not aligned)', () => {
    fc.assert(
      fc.property(fc.array(int32), fc.array(fc.double()), fc.nat({ max: 7 }), (ids, logprobs, offset) => {
        const shifted = (bytes: Buffer): Buffer => Buffer.concat([Buffer.alloc(offset), bytes]).subarray(offset);
        expect(unpackInt32(shifted(packInt32(Int32Array.from(ids))))).toEqual(Int32Array.from(ids));
        expect(unpackFloat32(shifted(packFloat32(Float32Array.from(logprobs))))).toEqual(Float32Array.from(logprobs));
      }),
    );
  });
});
