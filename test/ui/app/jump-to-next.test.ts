import { describe, expect, it } from 'vitest';
import { lowLogprobPositions, nextPosition } from '../../../ui/app/logic/jump-to-next.js';

describe('lowLogprobPositions', () => {
  it('finds the trained tokens below the threshold and skips context', () => {
    expect(lowLogprobPositions([null, -0.1, -3, null, -2, -5.5], -2)).toEqual([2, 5]);
  });
});

describe('nextPosition', () => {
  const positions = [3, 9, 20];

  it('goes to the next position after the current one, and none after the last', () => {
    expect(nextPosition(positions, 0, 1)).toBe(3);
    expect(nextPosition(positions, 3, 1)).toBe(9);
    expect(nextPosition(positions, 10, 1)).toBe(20);
    expect(nextPosition(positions, 20, 1)).toBeNull();
  });

  it('goes to the previous position before the current one, and none before the first', () => {
    expect(nextPosition(positions, 20, -1)).toBe(9);
    expect(nextPosition(positions, 10, -1)).toBe(9);
    expect(nextPosition(positions, 3, -1)).toBeNull();
  });

  it('starts at either end without a current position', () => {
    expect(nextPosition(positions, null, 1)).toBe(3);
    expect(nextPosition(positions, null, -1)).toBe(20);
    expect(nextPosition([], null, 1)).toBeNull();
  });
});
