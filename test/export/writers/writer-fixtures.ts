import type { ColumnSpec, ExportRow } from '../../../trainer-adapters/trainer-adapter.js';

/** One column of every ColumnType, some nullable, in an order that is not alphabetical. */
export const ALL_TYPES: readonly ColumnSpec[] = [
  { name: 'uid', type: 'string', description: 'string' },
  { name: 'prompt_length', type: 'int32', description: 'int32' },
  { name: 'step', type: 'int64', description: 'int64' },
  { name: 'advantage', type: 'float32', description: 'float32' },
  { name: 'reward', type: 'float64', nullable: true, description: 'nullable float64' },
  { name: 'truncated', type: 'bool', description: 'bool' },
  { name: 'input_ids', type: 'int32[]', description: 'int32[]' },
  { name: 'positions', type: 'int64[]', description: 'int64[]' },
  { name: 'logprobs', type: 'float32[]', description: 'float32[]' },
  { name: 'loss_mask', type: 'uint8[]', description: 'uint8[]' },
  { name: 'tags', type: 'string[]', nullable: true, description: 'nullable string[]' },
  { name: 'extra_info', type: 'json', nullable: true, description: 'nullable json' },
];

/** DuckDB's names for ALL_TYPES, in order. */
export const ALL_TYPES_IN_DUCKDB = [
  'VARCHAR',
  'INTEGER',
  'BIGINT',
  'FLOAT',
  'DOUBLE',
  'BOOLEAN',
  'INTEGER[]',
  'BIGINT[]',
  'FLOAT[]',
  'UTINYINT[]',
  'VARCHAR[]',
  'JSON',
];

/** Rows covering the edges: unicode, empty lists, nulls, int32 bounds, float32 values with no short double. */
export function allTypesRows(): ExportRow[] {
  return [
    {
      uid: 'héllo 中文 🙂 "quoted" \\ back\nslash',
      prompt_length: 2_147_483_647,
      step: 2 ** 40 + 3,
      advantage: Math.fround(-0.1),
      reward: 1.5,
      truncated: true,
      input_ids: Int32Array.of(0, 151_642, -2_147_483_648, 2_147_483_647, 9, 10, 99, 100),
      positions: [0, 2 ** 50],
      logprobs: Float32Array.of(-0.1, -1e-7, -23.456789, 0, 3.4028234663852886e38, 1e-45),
      loss_mask: Uint8Array.of(0, 1, 1, 255),
      tags: ['a', 'ü', ''],
      extra_info: { nested: [1, 'two', null, true, { deep: 2.5 }], empty: {} },
    },
    {
      uid: '',
      prompt_length: -2_147_483_648,
      step: 0,
      advantage: 0,
      reward: null,
      truncated: false,
      input_ids: new Int32Array(0),
      positions: Int32Array.of(7, -7),
      logprobs: new Float32Array(0),
      loss_mask: new Uint8Array(0),
      tags: null,
      extra_info: null,
    },
    {
      uid: 'row with json scalars',
      prompt_length: 3,
      step: -(2 ** 53 - 1),
      advantage: 1 / 3,
      reward: -0.25,
      truncated: false,
      input_ids: [1, 2, 3],
      positions: [],
      logprobs: [0.5, -2],
      loss_mask: [1, 0],
      tags: [],
      extra_info: 'just a string',
    },
  ];
}

/** A Float32Array of `length` arbitrary finite float32 values (every exponent), from a fixed seed. */
export function arbitraryFloat32s(length: number, seed = 1): Float32Array {
  const bits = new Uint32Array(length);
  let state = seed;
  for (let index = 0; index < length; index += 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    bits[index] = (state ^ (state >>> 15) ^ Math.imul(index, 2_654_435_761)) >>> 0;
  }
  const values = new Float32Array(bits.buffer);
  for (let index = 0; index < length; index += 1) if (!Number.isFinite(values[index]!)) values[index] = index;
  return values;
}
