import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTrainerAdapter, TRAINER_FORMATS } from '../../trainer-adapters/index.js';

const TOKEN_FORMATS = ['jsonl', 'parquet', 'verl', 'slime', 'openrlhf', 'trl-grpo', 'tinker', 'skyrl'];

describe('trainer format registry', () => {
  it('lists the token-level formats with their shapes and default shapes', () => {
    const listed = TRAINER_FORMATS.filter((entry) => TOKEN_FORMATS.includes(entry.format));
    expect(listed.map((entry) => entry.format)).toEqual(TOKEN_FORMATS);
    expect(TRAINER_FORMATS.find((entry) => entry.format === 'tinker')).toMatchObject({ shapes: ['rl', 'sft'], defaultShape: 'rl' });
    expect(TRAINER_FORMATS.find((entry) => entry.format === 'skyrl')).toMatchObject({ shapes: ['generator', 'sft'], defaultShape: 'generator' });
    expect(TRAINER_FORMATS.find((entry) => entry.format === 'verl')).not.toHaveProperty('shapes');
    expect(new Set(TRAINER_FORMATS.map((entry) => entry.format)).size).toBe(TRAINER_FORMATS.length);
  });

  it('builds each listed format with its default shape, and the shape asked for', () => {
    for (const entry of TRAINER_FORMATS) {
      const adapter = createTrainerAdapter(entry.format);
      expect([adapter.format, adapter.shape]).toEqual([entry.format, entry.defaultShape]);
    }
    expect(createTrainerAdapter('skyrl', { shape: 'sft' }).shape).toBe('sft');
  });

  it('refuses an unknown format, an unknown shape, and a shape for a format without shapes, naming the valid ones', () => {
    expect(() => createTrainerAdapter('verll')).toThrow(expect.objectContaining({ code: 'EXPORT_UNKNOWN_FORMAT' }));
    expect(() => createTrainerAdapter('verll')).toThrow(/unknown trainer format 'verll'; valid formats: jsonl, parquet, verl, slime/);
    expect(() => createTrainerAdapter('tinker', { shape: 'ppo' })).toThrow(/unknown shape 'ppo' for trainer format 'tinker'; valid shapes: rl, sft/);
    expect(() => createTrainerAdapter('verl', { shape: 'rl' })).toThrow(/trainer format 'verl' has no shapes/);
  });

  it('documents each format in docs/formats.md with exactly its columns and types, shape by shape', () => {
    const doc = readFileSync(new URL('../../docs/formats.md', import.meta.url), 'utf8');
    for (const entry of TRAINER_FORMATS.filter((candidate) => TOKEN_FORMATS.includes(candidate.format) && candidate.format !== 'parquet')) {
      const adapters = (entry.shapes ?? [undefined]).map((shape) => createTrainerAdapter(entry.format, shape === undefined ? {} : { shape }));
      for (const { columns } of adapters) expect(new Set(columns.map((column) => column.name)).size).toBe(columns.length);
      const expected = adapters.flatMap(({ columns }) =>
        columns.map((column) => `${column.name} ${column.type}${column.nullable === true ? ' (nullable)' : ''}`),
      );
      expect(documentedColumns(doc, entry.format), entry.format).toEqual(expected);
    }
    expect(documentedColumns(doc, 'parquet')).toEqual(documentedColumns(doc, 'jsonl'));
  });
});

/** The `| \`name\` | type |` rows of the docs section whose heading names the format, in order. */
function documentedColumns(doc: string, format: string): string[] {
  const section = doc.split(/^## /m).find((candidate) => candidate.split('\n')[0]!.includes(`\`${format}\``)) ?? '';
  return [...section.matchAll(/^\| `([^`]+)` \| ([^|]+?) \|/gm)].map((match) => `${match[1]} ${match[2]}`);
}
