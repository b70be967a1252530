import { describe, expect, it } from 'vitest';
import { formatPostgresReport, judgeTargets, type PostgresBenchResult, type ThroughputRow } from '../../bench/postgres-report.js';

/** A setup of `calls` calls in 10 s whose gateways used `gatewayCpu` seconds (and the other processes 1 s each). */
function setup(engine: ThroughputRow['engine'], gateways: number, calls: number, gatewayCpu: number): ThroughputRow {
  return {
    name: engine === 'direct' ? 'direct' : `${engine}-${gateways}`,
    engine,
    gateways,
    calls,
    seconds: 10,
    p50Ms: 10,
    p99Ms: engine === 'direct' ? 20 : 30,
    errors: 0,
    errorSamples: [],
    lost: engine === 'direct' ? null : 0,
    cpu: { gateways: gatewayCpu, postgres: engine === 'postgres' ? 1 : Number.NaN, simulator: 1, clients: 1, machine: 5 },
  };
}

function result(overrides: { pgCpu?: number; pgFourCalls?: number; freeCores?: number; cores?: number } = {}): PostgresBenchResult {
  return {
    config: {
      concurrency: 32,
      rounds: 3,
      seconds: 8,
      tokens: 64,
      systemTokens: 1000,
      turns: 8,
      commitSessions: 5,
      exportSessions: 100,
      exportTurns: 10,
    },
    machine: {
      cores: overrides.cores ?? 2,
      freeCoresBefore: overrides.freeCores ?? 2,
      loadAverage: 1,
      fdatasyncMs: 3,
      engineCommits: { gapsMs: [0, 10, 70], postgres: [0.8, 1.2, 1.7], postgresUnsynced: [0.4, 0.6, 0.9], sqlite: [0.1, 0.2, 0.3] },
    },
    throughput: [
      setup('direct', 0, 3000, 0),
      setup('sqlite', 1, 1000, 5),
      setup('sqlite', 2, 1800, 9),
      setup('postgres', 1, 1000, overrides.pgCpu ?? 6),
      setup('postgres', 2, 1900, 12),
      setup('postgres', 4, overrides.pgFourCalls ?? 3200, 24),
    ],
    commit: {
      direct: { p50Ms: 2, p99Ms: 4, calls: 40, errors: 0 },
      sqlite: { p50Ms: 3, p99Ms: 6, calls: 40, errors: 0 },
      postgres: { p50Ms: 3.5, p99Ms: 8, calls: 40, errors: 0 },
    },
    storage: {
      recorded: { sqlite: { bytes: 100_000, calls: 10 }, postgres: { bytes: 160_000, calls: 10 } },
      synthetic: { sqlite: { bytes: 100_000, calls: 10 }, postgres: { bytes: 120_000, calls: 10 } },
    },
    exports: [
      { engine: 'sqlite', fileType: 'jsonl', bytes: 10e6, seconds: 1, cpuSeconds: 1 },
      { engine: 'postgres', fileType: 'jsonl', bytes: 10e6, seconds: 2.5, cpuSeconds: 1.5 },
    ],
    writeCallsPerSecond: { sqlite: 500, postgres: 100 },
    gatewayExits: { sqlite: [0, 0], postgres: [0, 0, 0, 0] },
  };
}

const verdict = (all: ReturnType<typeof judgeTargets>, start: string) => all.find((entry) => entry.target.startsWith(start))!;

describe('the PostgreSQL bench report', () => {
  it('judges every target of issue 17 on the ratios of one run, pass or miss', () => {
    const verdicts = judgeTargets(result());
    expect(verdict(verdicts, 'gateway CPU per call').pass).toBe(true); // 6 / 5 = 1.2
    expect(verdict(verdicts, 'gateway CPU per call').measured).toMatch(/^1\.20x with 1 gateway \(6\.00 \/ 5\.00 ms\), 1\.26x with 2/);
    expect(verdict(verdicts, 'commit before the last byte').measured).toMatch(/^\+0\.50 ms/);
    expect(verdict(verdicts, 'commit before the last byte').pass).toBe(true);
    // the engines' own commits, side by side at each pause, and the gateway's share above their difference at 10 ms
    expect(verdict(verdicts, 'commit before the last byte').note).toMatch(
      /\+0\.70 ms back to back \(0\.80 \/ 0\.10\), \+1\.00 ms 10 ms apart \(1\.20 \/ 0\.20\), \+1\.40 ms 70 ms apart/,
    );
    expect(verdict(verdicts, 'commit before the last byte').note).toMatch(/own share above the floor at this phase's pace \(10 ms\): -0\.50 ms/);
    // how much of that floor is the WAL flush: the same insert without it, at the phase's pace
    expect(verdict(verdicts, 'commit before the last byte').note).toMatch(/synchronous_commit off .* that floor at 10 ms is \+0\.40 ms \(0\.60 ms\)/);
    expect(verdict(verdicts, 'storage per turn (recorded').pass).toBe(false); // 1.6
    expect(verdict(verdicts, 'storage per turn (synthetic').pass).toBe(true); // 1.2
    expect(verdict(verdicts, 'export jsonl').pass).toBe(false); // 4 / 10 MB/s
    expect(verdict(verdicts, '4 gateways').measured).toMatch(/^3\.20x/);
    expect(verdict(verdicts, '4 gateways').pass).toBe(true);
    expect(judgeTargets(result({ pgCpu: 7 })).find((entry) => entry.target.startsWith('gateway CPU'))!.pass).toBe(false);
  });

  it('says whether the cores allowed the scaling test: 3x the CPU the 1-gateway phase used must have been free', () => {
    // the 1-gateway PostgreSQL phase kept 0.6 + 0.1 + 0.1 + 0.1 = 0.9 cores busy: 3x needs 2.7
    expect(verdict(judgeTargets(result({ pgFourCalls: 1500, freeCores: 2 })), '4 gateways')).toMatchObject({
      pass: false,
      note: expect.stringContaining('did not allow'),
    });
    expect(verdict(judgeTargets(result({ pgFourCalls: 1500, freeCores: 8, cores: 8 })), '4 gateways').note).toContain(
      '8.0 of 8 cores free; 3x the 1-gateway phase needs about 2.7: the cores allowed the test',
    );
  });

  it('judges neither CPU nor scaling when calls failed: a gateway refusing calls serves the rest cheaply', () => {
    const failing = result();
    failing.throughput[3] = { ...failing.throughput[3]!, errors: 12, errorSamples: ['postgres-1-0-0: HTTP 503'] };
    const verdicts = judgeTargets(failing);
    expect(verdict(verdicts, 'gateway CPU per call')).toMatchObject({ pass: false, note: expect.stringContaining('not judged: 12 calls failed') });
    expect(verdict(verdicts, '4 gateways')).toMatchObject({ pass: false, note: expect.stringContaining('not judged: 12 calls failed') });
    expect(formatPostgresReport(failing)).toContain('  postgres-1 error: postgres-1-0-0: HTTP 503');
  });

  it('prints one table row per setup with its ratio to one gateway and its p99 over direct, and every target', () => {
    const text = formatPostgresReport(result());
    expect(text).toContain('| postgres-4 | 320 | 3.20 | 10.0 | 30.0 | 10.0 | 7.50 | 0.31 |');
    expect(text).toContain('| direct | 300 | - |');
    expect(text.match(/^ {2}(pass|MISS) {2}/gm)).toHaveLength(6);
    // the c=1 verdict names what a commit alone costs, back to back and after an idle gap
    expect(text).toContain('the engines alone, a 2 KB insert committed on a plain client, PostgreSQL - SQLite: +0.70 ms back to back (0.80 / 0.10)');
  });
});
