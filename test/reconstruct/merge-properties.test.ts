import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openStore } from '../../store/index.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { expectSoundReconstruction } from './expect-reconstruction.js';
import { recordPlannedSession } from './record-planned-session.js';
import { CUT_THEN_TRUNCATED_PLAN, EVERY_DRIFT_PLAN, FLAGGED_THEN_COMPACTED_PLAN, sessionPlan } from './session-plan.js';

const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());

describe('reconstruction of random Qwen3 tool conversations with random drift (store API)', () => {
  it('verifies every sample, trains every call once, agrees across strategies, and breaks exactly at drift', () => {
    const temp = makeTempDir('tokentap-merge-props-');
    const store = openStore({ path: temp.file('t.db') });
    const seen = new Map<string, number>();
    try {
      let run = 0;
      fc.assert(
        fc.property(sessionPlan({ maxSteps: 14 }), (plan) => {
          const sessionId = `run-${run++}`;
          const recorded = recordPlannedSession(store, tokenizer, sessionId, plan);
          const report = expectSoundReconstruction(store, sessionId, recorded, tokenizer);
          for (const diagnostic of report.drift) seen.set(diagnostic.kind, (seen.get(diagnostic.kind) ?? 0) + 1);
        }),
        // fixed plans first: every kind of drift on every run whatever the seed, then counterexamples once found
        {
          numRuns: Number(process.env.RECONSTRUCT_RUNS ?? 60),
          examples: [[EVERY_DRIFT_PLAN], [FLAGGED_THEN_COMPACTED_PLAN], [CUT_THEN_TRUNCATED_PLAN]],
        },
      );
      // every kind of drift was injected and named (the fixed plan guarantees it; random plans add to the counts)
      expect([...seen.keys()].sort()).toEqual(['history-edited', 'parallel-branch', 'retokenized', 'template-rerender', 'truncated-completion']);
    } finally {
      store.close();
      temp.remove();
    }
  }, 180_000);
});
