import { describe, expect, it } from 'vitest';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { EXPORT_QUERY_KEYS, parseExportQuery } from '../../export/parse-export-query.js';

function failure(values: Parameters<typeof parseExportQuery>[0]): string {
  try {
    parseExportQuery(values);
  } catch (error) {
    expect(isTokentapError(error, 'EXPORT_INVALID_OPTION')).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`no error for ${JSON.stringify(values)}`);
}

describe('parseExportQuery', () => {
  it('splits filters, advantage options and the strategy out of flat querystring values', () => {
    expect(
      parseExportQuery({
        since: '1000',
        until: '2025-06-01T00:00:00Z',
        tags: 'math, easy',
        split: 'train',
        rewardMin: '-1',
        rewardMax: '1.5',
        status: 'completed,truncated',
        faithfulOnly: 'true',
        minLength: '1',
        maxLength: '4096',
        maxStaleness: '0',
        policyVersions: 'step-1,step-2',
        estimator: 'grpo',
        normalizeStd: 'false',
        epsilon: '0.001',
        dropZeroVarianceGroups: '1',
        strategy: 'per-call',
      }),
    ).toEqual({
      filters: {
        since: 1000,
        until: Date.parse('2025-06-01T00:00:00Z'),
        tags: ['math', 'easy'],
        split: 'train',
        rewardMin: -1,
        rewardMax: 1.5,
        status: ['completed', 'truncated'],
        faithfulOnly: true,
        minLength: 1,
        maxLength: 4096,
        maxStaleness: 0,
        policyVersions: ['step-1', 'step-2'],
      },
      advantage: { estimator: 'grpo', normalizeStd: false, epsilon: 0.001, dropZeroVarianceGroups: true },
      strategy: 'per-call',
    });
  });

  it('takes parseArgs values: kebab-case keys, boolean flags and repeated options', () => {
    expect(parseExportQuery({ 'reward-min': '0', 'faithful-only': true, tags: ['a', 'b,c'], 'session-ids': 's-1', format: 'verl' })).toEqual({
      filters: { rewardMin: 0, faithfulOnly: true, tags: ['a', 'b', 'c'], sessionIds: ['s-1'] },
      advantage: {},
      strategy: undefined,
    });
  });

  it('a flag given without a value is on', () => {
    expect(parseExportQuery({ faithfulOnly: '' }).filters).toEqual({ faithfulOnly: true });
  });

  it('leaves keys it does not read to the caller, and lists the ones it reads', () => {
    expect(parseExportQuery({ format: 'verl', minGroups: '2' })).toEqual({ filters: {}, advantage: {}, strategy: undefined });
    expect(EXPORT_QUERY_KEYS).toContain('dropZeroVarianceGroups');
    expect(EXPORT_QUERY_KEYS).not.toContain('format');
  });

  it('refuses bad values with an EXPORT_INVALID_OPTION error naming the option', () => {
    expect(failure({ rewardMin: 'high' })).toMatch(/rewardMin/);
    expect(failure({ split: 'dev' })).toMatch(/split/);
    expect(failure({ since: 'yesterday' })).toMatch(/since.*|ISO 8601/);
    expect(failure({ minLength: '-1' })).toMatch(/minLength/);
    expect(failure({ maxStaleness: '1.5' })).toMatch(/maxStaleness/);
    expect(failure({ status: 'done' })).toMatch(/status/);
    expect(failure({ estimator: 'ppo' })).toMatch(/estimator/);
    expect(failure({ faithfulOnly: 'maybe' })).toMatch(/faithfulOnly/);
    expect(failure({ tags: ' , ' })).toMatch(/tags/);
    expect(failure({ strategy: 'concat' })).toMatch(/strategy/);
  });

  it('refuses a scalar given twice, or under both spellings', () => {
    expect(failure({ split: ['train', 'val'] })).toMatch(/split/);
    expect(failure({ rewardMin: '1', 'reward-min': '2' })).toMatch(/rewardMin given twice/);
  });

  it('refuses empty ranges', () => {
    expect(failure({ since: '2000', until: '1000' })).toMatch(/since must be before until/);
    expect(failure({ rewardMin: '1', rewardMax: '0' })).toMatch(/rewardMin must not exceed rewardMax/);
    expect(failure({ minLength: '10', maxLength: '5' })).toMatch(/minLength must not exceed maxLength/);
  });
});
