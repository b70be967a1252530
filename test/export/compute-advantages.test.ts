import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeAdvantages, isZeroVariance, sampleStandardDeviation } from '../../export/compute-advantages.js';
import { MAX_REWARD_MAGNITUDE } from '../../store/index.js';

/** Rewards of a group: finite, of a size where a baseline exists. */
const groupRewards = fc.array(fc.double({ min: -100, max: 100, noNaN: true }), { minLength: 2, maxLength: 16 });

const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

function expectAdvantages(actual: Array<number | null>, expected: Array<number | null>): void {
  expect(actual).toHaveLength(expected.length);
  for (const [index, value] of expected.entries()) {
    if (value === null) expect(actual[index]).toBeNull();
    else expect(actual[index]).toBeCloseTo(value, 12);
  }
}

describe('computeAdvantages', () => {
  it('grpo divides r - mean by the Bessel std plus epsilon', () => {
    // mean 2/3, sum of squares 2/3, std = sqrt((2/3) / 2) = sqrt(1/3)
    const std = Math.sqrt(1 / 3);
    const advantages = computeAdvantages([1, 0, 1], { estimator: 'grpo' }) as number[];
    expect(advantages[0]).toBeCloseTo(1 / 3 / (std + 1e-6), 12);
    expect(advantages[1]).toBeCloseTo(-2 / 3 / (std + 1e-6), 12);
    expect(advantages[2]).toBeCloseTo(1 / 3 / (std + 1e-6), 12);
  });

  it('grpo uses the given epsilon', () => {
    const advantages = computeAdvantages([1, 0], { epsilon: 0.5 }) as number[];
    // mean 0.5, std (Bessel) = sqrt(0.5)
    expect(advantages[0]).toBeCloseTo(0.5 / (Math.sqrt(0.5) + 0.5), 12);
    expect(advantages[1]).toBeCloseTo(-0.5 / (Math.sqrt(0.5) + 0.5), 12);
  });

  it('grpo without std normalisation and dr-grpo are r - mean', () => {
    expectAdvantages(computeAdvantages([1, 0, 1], { normalizeStd: false }), [1 / 3, -2 / 3, 1 / 3]);
    expectAdvantages(computeAdvantages([1, 0, 1], { estimator: 'dr-grpo' }), [1 / 3, -2 / 3, 1 / 3]);
  });

  it('rloo subtracts the mean of the other rollouts', () => {
    const advantages = computeAdvantages([1, 0, 1], { estimator: 'rloo' }) as number[];
    expect(advantages[0]).toBeCloseTo(1 - 0.5, 12);
    expect(advantages[1]).toBeCloseTo(0 - 1, 12);
    expect(advantages[2]).toBeCloseTo(1 - 0.5, 12);
  });

  it('a group of one gets 0 under every estimator but none', () => {
    for (const estimator of ['grpo', 'dr-grpo', 'rloo'] as const) expect(computeAdvantages([0.7], { estimator })).toEqual([0]);
    expect(computeAdvantages([0.7], { normalizeStd: false })).toEqual([0]);
    expect(computeAdvantages([0.7], { estimator: 'none' })).toEqual([null]);
  });

  it('rollouts without a reward get null and are left out of the baseline', () => {
    expect(computeAdvantages([1, null, 0], { estimator: 'dr-grpo' })).toEqual([0.5, null, -0.5]);
    expect(computeAdvantages([null, 1], {})).toEqual([null, 0]);
    expect(computeAdvantages([null, null], {})).toEqual([null, null]);
  });

  it('estimator none gives null to every rollout', () => {
    expect(computeAdvantages([1, 0, null], { estimator: 'none' })).toEqual([null, null, null]);
  });

  it('grpo advantages of any group sum to 0 and keep the order of the rewards', () => {
    fc.assert(
      fc.property(groupRewards, (rewards) => {
        const advantages = computeAdvantages(rewards, {}) as number[];
        const scale = Math.max(1, ...advantages.map(Math.abs));
        // r - mean is exact only to the rounding of the mean (a few ulps of the largest reward), then multiplied
        // by 1 / (std + epsilon): nearly equal rewards of 100 give 1e-14 * 1e6 (seed 578672567 found it)
        const mean = sum(rewards) / rewards.length;
        const rounding = (4 * Number.EPSILON * Math.max(...rewards.map(Math.abs))) / (sampleStandardDeviation(rewards, mean) + 1e-6);
        expect(Math.abs(sum(advantages))).toBeLessThan(rewards.length * (1e-9 * scale + rounding));
        for (let i = 0; i < rewards.length; i++) {
          for (let j = 0; j < rewards.length; j++) {
            if ((rewards[i] as number) < (rewards[j] as number)) expect(advantages[i]).toBeLessThanOrEqual(advantages[j] as number);
          }
        }
      }),
      { examples: [[[99.99999999957922, 99.99999999957943]]] },
    );
  });

  it('grpo advantages of a group with spread have a Bessel std of about 1', () => {
    fc.assert(
      fc.property(groupRewards, (rewards) => {
        const mean = sum(rewards) / rewards.length;
        const std = sampleStandardDeviation(rewards, mean);
        fc.pre(std > 1e-3);
        const advantages = computeAdvantages(rewards, {}) as number[];
        expect(sampleStandardDeviation(advantages, sum(advantages) / advantages.length)).toBeCloseTo(std / (std + 1e-6), 6);
      }),
    );
  });

  it('rloo equals r minus the mean of the others, for any group', () => {
    fc.assert(
      fc.property(groupRewards, (rewards) => {
        const advantages = computeAdvantages(rewards, { estimator: 'rloo' }) as number[];
        for (const [index, reward] of rewards.entries()) {
          const others = rewards.filter((_, other) => other !== index);
          expect(advantages[index]).toBeCloseTo(reward - sum(others) / others.length, 6);
        }
      }),
    );
  });

  it('a group without spread gets 0 under grpo with epsilon 0 (was 0 / 0 = NaN, which stopped the export)', () => {
    expect(computeAdvantages([0.5, 0.5, 0.5], { estimator: 'grpo', epsilon: 0 })).toEqual([0, 0, 0]);
    expect(computeAdvantages([1, 1], { epsilon: 0 })).toEqual([0, 0]);
  });

  it('rewards anywhere within ±MAX_REWARD_MAGNITUDE give advantages that are finite, in float32 too, under every estimator', () => {
    const hugeRewards = fc.array(fc.double({ min: -MAX_REWARD_MAGNITUDE, max: MAX_REWARD_MAGNITUDE, noNaN: true }), { minLength: 1, maxLength: 64 });
    const extremes = [
      [MAX_REWARD_MAGNITUDE, -MAX_REWARD_MAGNITUDE],
      [MAX_REWARD_MAGNITUDE, MAX_REWARD_MAGNITUDE, -MAX_REWARD_MAGNITUDE],
      Array.from({ length: 1000 }, (_, index) => (index % 2 === 0 ? 1 : -1) * MAX_REWARD_MAGNITUDE),
    ];
    const estimators = [
      { estimator: 'grpo' },
      { estimator: 'grpo', normalizeStd: false },
      { estimator: 'grpo', epsilon: 0 },
      { estimator: 'dr-grpo' },
      { estimator: 'rloo' },
    ] as const;
    const check = (rewards: number[]): void => {
      for (const options of estimators) {
        for (const advantage of computeAdvantages(rewards, options))
          expect(Number.isFinite(Math.fround(advantage as number)), JSON.stringify(options)).toBe(true);
      }
    };
    for (const rewards of extremes) check(rewards);
    fc.assert(fc.property(hugeRewards, check));
  });
});

describe('isZeroVariance', () => {
  it('is true for equal rewards and singletons, false for spread or no reward at all', () => {
    expect(isZeroVariance([0.5, 0.5])).toBe(true);
    expect(isZeroVariance([0.5, null, 0.5])).toBe(true);
    expect(isZeroVariance([1])).toBe(true);
    expect(isZeroVariance([1, 0])).toBe(false);
    expect(isZeroVariance([null])).toBe(false);
    expect(isZeroVariance([])).toBe(false);
  });
});
