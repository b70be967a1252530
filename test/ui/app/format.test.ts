import { describe, expect, it } from 'vitest';
import {
  formatCount,
  formatCounts,
  formatDuration,
  formatLogprob,
  formatScore,
  formatTime,
  localInputToMs,
  msToLocalInput,
} from '../../../ui/app/logic/format.js';

describe('format', () => {
  it('writes counts with separators and a dash for none', () => {
    expect(formatCount(101_450)).toBe('101,450');
    expect(formatCount(null)).toBe('–');
    expect(formatCounts({ ok: 3, error: 0, aborted: 1 })).toBe('ok 3 · aborted 1');
    expect(formatCounts({})).toBe('–');
  });

  it('writes rewards to at most three decimals', () => {
    expect(formatScore(1)).toBe('1');
    expect(formatScore(0.5)).toBe('0.5');
    expect(formatScore(-1.30624)).toBe('-1.306');
    expect(formatScore(null)).toBe('–');
  });

  it('writes durations in ms, s, or minutes', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_300)).toBe('12.3 s');
    expect(formatDuration(190_000)).toBe('3m 10s');
    expect(formatDuration(null)).toBe('–');
  });

  it('writes times in UTC and logprobs with their probability', () => {
    expect(formatTime(Date.UTC(2026, 11, 2, 5, 31, 22))).toBe('2026-12-02 05:31:22');
    expect(formatLogprob(0)).toBe('0.000 (p=1.00)');
    expect(formatLogprob(null)).toBe('– (context)');
  });

  it('turns a datetime-local value into ms and back', () => {
    const ms = localInputToMs('2026-12-02T05:31');
    expect(msToLocalInput(ms)).toBe('2026-12-02T05:31');
    expect(localInputToMs('')).toBe('');
    expect(msToLocalInput('')).toBe('');
  });
});
