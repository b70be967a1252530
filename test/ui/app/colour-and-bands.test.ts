import { describe, expect, it } from 'vitest';
import { LOGPROB_FLOOR, logprobHeat, policyPalette, UNVERSIONED_COLOUR } from '../../../ui/app/logic/colour-scale.js';
import { bandPerToken, bandsInRange, bandVersions } from '../../../ui/app/logic/policy-bands.js';

describe('logprobHeat', () => {
  it('runs from green for a sure token to red at the floor, and leaves context uncoloured', () => {
    expect(logprobHeat(0)).toBe('hsl(120 60% 88%)');
    expect(logprobHeat(LOGPROB_FLOOR)).toBe('hsl(0 80% 62%)');
    expect(logprobHeat(-100)).toBe(logprobHeat(LOGPROB_FLOOR));
    expect(logprobHeat(null)).toBeNull();
  });

  it('gives a lower logprob a redder hue', () => {
    const hue = (colour: string | null): number => Number(/hsl\((\d+)/.exec(colour ?? '')?.[1]);
    expect(hue(logprobHeat(-1))).toBeGreaterThan(hue(logprobHeat(-3)));
  });
});

describe('policyPalette', () => {
  it('gives each version its own colour in order of appearance, and grey to unversioned tokens', () => {
    const palette = policyPalette(['v1', null, 'v2', 'v1']);
    expect(palette.size).toBe(3);
    expect(palette.get(null)).toBe(UNVERSIONED_COLOUR);
    expect(palette.get('v1')).not.toBe(palette.get('v2'));
  });
});

describe('policy bands', () => {
  const bands = [
    { start: 10, end: 20, version: 'v1' },
    { start: 30, end: 600, version: 'v2' },
    { start: 700, end: 800, version: null },
  ];

  it('clips the bands to a chunk', () => {
    expect(bandsInRange(bands, 0, 512)).toEqual([
      { start: 10, end: 20, version: 'v1' },
      { start: 30, end: 512, version: 'v2' },
    ]);
    expect(bandsInRange(bands, 512, 1024)).toEqual([
      { start: 512, end: 600, version: 'v2' },
      { start: 700, end: 800, version: null },
    ]);
    expect(bandsInRange(bands, 600, 700)).toEqual([]);
  });

  it('gives each token of a chunk its band, none to tokens outside every band', () => {
    const perToken = bandPerToken(bands, 8, 12);
    expect(perToken.map((band) => band?.version)).toEqual([undefined, undefined, 'v1', 'v1']);
  });

  it('lists the versions in order for the legend', () => {
    expect(bandVersions(bands)).toEqual(['v1', 'v2', null]);
  });
});
