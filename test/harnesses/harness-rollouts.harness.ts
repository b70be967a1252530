import { describe, expect, it } from 'vitest';
import { runHarnessRollouts } from '../../examples/harness-rollouts.js';
import { harnessBin, harnessPin } from './harness-bin.js';
import { HARNESS_BACKEND, HARNESS_BACKEND_LABEL } from './harness-backend.js';

describe(`examples/harness-rollouts.ts: Claude Code ${harnessPin('claude-code').version} and Codex ${harnessPin('codex').version} as rollouts ${HARNESS_BACKEND_LABEL}`, () => {
  it('runs each agent in its own keyed session, rewards it by its file, and exports a group of samples carrying the rewards', async () => {
    // the pinned agents must be installed (the example finds them in .harness-cache/); this throws naming the installer
    harnessBin('claude-code');
    harnessBin('codex');
    const lines: string[] = [];
    const results = await runHarnessRollouts({
      harnesses: ['claude-code', 'codex'],
      print: (line) => lines.push(line),
      backendFlavour: HARNESS_BACKEND,
    });
    expect(
      results.map((result) => [result.harness, result.exitCode, result.reward]),
      lines.join('\n'),
    ).toEqual([
      ['claude-code', 0, 1],
      ['codex', 0, 1],
    ]);
    for (const result of results) {
      expect(result.samples.length, lines.join('\n')).toBeGreaterThan(0);
      for (const sample of result.samples)
        expect(sample).toMatchObject({ rolloutId: result.sessionId, groupId: 'harness-rollouts', reward: 1, status: 'completed' });
    }
    expect(new Set(results.map((result) => result.sessionId)).size).toBe(2);
  });
});
