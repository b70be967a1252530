import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRecordWriter } from '../../../export/writers/record-writer.js';
import { plainJsonValue } from '../../../export/writers/plain-json-value.js';
import { encodeJsonValue } from '../../../export/writers/write-json-value.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

/** What the Parquet string of a json column was before: encodeJsonValue's text read back and encoded again. */
const reencoded = (value: unknown): string => JSON.stringify(JSON.parse(encodeJsonValue(value)));

const VALUES: unknown[] = [
  { group_id: null, index: 3, status: 'completed', faithful: true, call_ids: ['a', 'b'], policy_versions: [] },
  { b: 1, a: [1, 'two', null, true, undefined, { '': -0, 'ü"\n': 1e21, x: undefined, f: () => 1 }], when: new Date(0), big: 1.5e-7 },
  {
    ids: Int32Array.of(-1, 2),
    mask: Uint8Array.of(0, 255),
    weights: Float32Array.of(0.1, -0, 3.4028234663852886e38, 1e-45),
    wide: Float64Array.of(0.1),
    longs: BigInt64Array.of(-5n),
    step: 2n ** 64n,
  },
  { 2: 'two', 1: 'one', z: { toJSON: () => ({ kept: [Float32Array.of(0.3)] }) } },
  JSON.parse('{"__proto__":{"x":1},"y":"\\ud800"}'),
  'just a string',
  [undefined, null, 0.5],
];

describe('plainJsonValue', () => {
  it('gives data whose JSON is what the Parquet writer wrote from the re-read text, for every kind of value', () => {
    for (const value of VALUES) expect(JSON.stringify(plainJsonValue(value))).toBe(reencoded(value));
  });

  it('refuses what encodeJsonValue refuses, with its error', () => {
    for (const value of [
      { data: { weights: Float32Array.of(1, Number.NaN) } },
      [{ a: Float64Array.of(Number.NEGATIVE_INFINITY) }],
      [Symbol('s')],
      { view: new DataView(new ArrayBuffer(1)) },
      { n: Number.NaN },
    ]) {
      expect(() => plainJsonValue(value)).toThrow(captureError(() => encodeJsonValue(value)));
    }
  });
});

describe('a json column in Parquet', () => {
  let folder: ReturnType<typeof makeTempDir>;
  beforeEach(() => {
    folder = makeTempDir('tokentap-plain-json-');
  });
  afterEach(() => {
    vi.restoreAllMocks();
    folder.remove();
  });

  it('is encoded once: its text is not parsed back', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const writer = createRecordWriter({
      path: folder.file('out.parquet'),
      columns: [{ name: 'extra_info', type: 'json', description: '' }],
      metadata: {},
    });
    await writer.write({ extra_info: VALUES[0] });
    await writer.close();
    expect(parse).not.toHaveBeenCalled();
  });
});

function captureError(work: () => unknown): Error {
  try {
    work();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}
