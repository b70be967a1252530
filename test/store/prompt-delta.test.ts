import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../store/index.js';
import { createPromptDelta } from '../../store/prompt-delta.js';
import { SequenceCache } from '../../store/sequence-cache.js';
import {
  createTempWorkspace,
  engineSuiteName,
  engineUnavailable,
  sampleBeginInput,
  sampleFinishInput,
  STORE_ENGINES,
  type TempWorkspace,
  workspaceForEachTest,
} from './store-fixtures.js';

/** How a generated turn builds its prompt from an earlier call's base (its prompt, then its completion). */
type PromptShape = 'extend' | 'cut' | 'identical' | 'empty' | 'fresh' | 'none';

interface Turn {
  shape: PromptShape;
  earlier: number;
  cut: number;
  tail: number[];
  completion: number[] | null;
}

/** Small ids collide often (so prefixes match by chance); extreme ones check the edges of the token-id range (0 to 2^31 - 1: the store refuses negative ids). */
const tokenId = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constantFrom(0, 2 ** 31 - 1));
const turn: fc.Arbitrary<Turn> = fc.record({
  shape: fc.constantFrom<PromptShape>('extend', 'extend', 'extend', 'cut', 'identical', 'empty', 'fresh', 'none'),
  earlier: fc.nat(),
  cut: fc.nat(),
  tail: fc.array(tokenId, { maxLength: 12 }),
  completion: fc.option(fc.array(tokenId, { maxLength: 8 }), { nil: null }),
});

interface Written {
  callId: string;
  prompt: number[] | null;
  completion: number[] | null;
}

/** Builds each turn's prompt from earlier calls as the shape says, writes it, and returns what was written. */
function writeSession(store: Store, turns: Turn[]): Written[] {
  const written: Written[] = [];
  for (const [index, spec] of turns.entries()) {
    const withPrompts = written.filter((call) => call.prompt !== null);
    const source = withPrompts.length === 0 ? null : (withPrompts[spec.earlier % withPrompts.length] ?? null);
    const base = source === null ? [] : [...(source.prompt ?? []), ...(source.completion ?? [])];
    const prompt = buildPrompt(spec, source?.prompt ?? null, base);
    const { callId } = store.beginCall(sampleBeginInput({ sessionId: 'property', startedAt: index }));
    store.finishCall(
      callId,
      sampleFinishInput({
        tokenSource: prompt === null ? 'none' : 'backend',
        promptTokenIds: prompt,
        completionTokenIds: spec.completion,
        completionLogprobs: spec.completion?.map(() => -1) ?? null,
      }),
    );
    written.push({ callId, prompt, completion: spec.completion });
  }
  return written;
}

function buildPrompt(spec: Turn, earlierPrompt: number[] | null, base: number[]): number[] | null {
  switch (spec.shape) {
    case 'none':
      return null;
    case 'empty':
      return [];
    case 'fresh':
      return spec.tail;
    case 'identical':
      return earlierPrompt ?? spec.tail;
    case 'extend':
      return [...base, ...spec.tail];
    case 'cut':
      return [...base.slice(0, spec.cut % (base.length + 1)), ...spec.tail];
  }
}

/** Reads every written call back one by one (or takes `calls` read in bulk) and compares ids. */
function expectReadBack(store: Store, written: Written[], calls = written.map((call) => store.getCall(call.callId))): void {
  expect(calls.map((call) => (call?.promptTokenIds == null ? null : Array.from(call.promptTokenIds)))).toEqual(written.map((call) => call.prompt));
  expect(calls.map((call) => (call?.completionTokenIds == null ? null : Array.from(call.completionTokenIds)))).toEqual(
    written.map((call) => call.completion),
  );
}

/** Turn k's prompt is turn k-1's prompt, its completion and one new id: the common agent shape. */
function writeGrowingSession(store: Store, turns: number): Written[] {
  let prompt: number[] = Array.from({ length: 50 }, (_, index) => index);
  const written: Written[] = [];
  for (let index = 0; index < turns; index++) {
    const completion = [100_000 + index, 151645];
    const { callId } = store.beginCall(sampleBeginInput({ sessionId: 'long', startedAt: index }));
    store.finishCall(callId, sampleFinishInput({ promptTokenIds: prompt, completionTokenIds: completion, completionLogprobs: [0, 0] }));
    written.push({ callId, prompt, completion });
    prompt = [...prompt, ...completion, 200_000 + index];
  }
  store.close();
  return written;
}

interface LinkRow {
  id: string;
  parent: string | null;
  prefix: number;
  tail: Buffer;
}

function readLinks(workspace: TempWorkspace): LinkRow[] {
  return workspace.inspect(
    (database) =>
      database
        .prepare('SELECT id, prompt_parent_id AS parent, prompt_prefix_length AS prefix, prompt_tail AS tail FROM calls ORDER BY seq')
        .all() as LinkRow[],
  );
}

for (const engine of STORE_ENGINES) {
  describe.skipIf(engineUnavailable(engine))(`${engineSuiteName(engine)}: prompt ids stored as deltas`, () => {
    let workspace: TempWorkspace;
    beforeEach(() => {
      workspace = createTempWorkspace(engine);
    });
    afterEach(() => workspace.cleanup());

    // Each PostgreSQL call write is a dozen round trips and two commits, several times SQLite's cost: it runs the
    // same shapes, smaller (a long line of 200 turns, fewer random sessions), so the suite stays within CI's budget
    const longTurns = engine === 'sqlite' ? 1_000 : 200;
    const runs = engine === 'sqlite' ? { long: 8, shuffled: 25 } : { long: 1, shuffled: 3 };

    it('a 200-turn session of random prompts sharing random prefixes reads back bit-identical, warm and cold', () => {
      fc.assert(
        fc.property(fc.array(turn, { minLength: 200, maxLength: 200 }), (turns) => {
          workspace.cleanup();
          workspace = createTempWorkspace(engine);
          const writer = workspace.open();
          const written = writeSession(writer, turns);
          expectReadBack(writer, written);
          writer.close();
          // A fresh process has no cached sequences: every prompt is rebuilt from the delta rows alone.
          expectReadBack(workspace.open(), [...written].reverse());
          const cold = workspace.open();
          expectReadBack(cold, written, cold.listCalls('property'));
        }),
        // Shrinking 200-turn sessions can run for minutes; report the best counterexample found by then.
        { numRuns: runs.long, interruptAfterTimeLimit: 20_000 },
      );
      // the time limit stops new runs, not one under way: on two busy cores (CI's, with PostgreSQL beside) a run is seconds
    }, 120_000);

    it('calls finished in random order (a parent may finish after its child began) read back bit-identical in bulk', () => {
      fc.assert(
        fc.property(fc.array(turn, { minLength: 40, maxLength: 40 }), fc.array(fc.nat(), { minLength: 40, maxLength: 40 }), (turns, order) => {
          workspace.cleanup();
          workspace = createTempWorkspace(engine);
          const writer = workspace.open();
          // every call begins first (seq in turn order), then they finish in a random order, each prompt built from
          // what finished before it
          const begun = turns.map((_, index) => writer.beginCall(sampleBeginInput({ sessionId: 'shuffled', startedAt: index })).callId);
          const pending = begun.map((callId, index) => ({ callId, index }));
          const finished: Array<Written & { index: number }> = [];
          for (const pick of order) {
            const [next] = pending.splice(pick % pending.length, 1);
            if (next === undefined) break;
            const spec = turns[next.index] as Turn;
            const withPrompts = finished.filter((call) => call.prompt !== null);
            const source = withPrompts.length === 0 ? null : (withPrompts[spec.earlier % withPrompts.length] ?? null);
            const prompt = buildPrompt(spec, source?.prompt ?? null, source === null ? [] : [...(source.prompt ?? []), ...(source.completion ?? [])]);
            writer.finishCall(
              next.callId,
              sampleFinishInput({
                tokenSource: prompt === null ? 'none' : 'backend',
                promptTokenIds: prompt,
                completionTokenIds: spec.completion,
                completionLogprobs: spec.completion?.map(() => -1) ?? null,
              }),
            );
            finished.push({ callId: next.callId, prompt, completion: spec.completion, index: next.index });
          }
          writer.close();
          const inSeqOrder = [...finished].sort((left, right) => left.index - right.index);
          const cold = workspace.open();
          expectReadBack(cold, inSeqOrder, cold.listCalls('shuffled'));
          cold.close();
        }),
        { numRuns: runs.shuffled, interruptAfterTimeLimit: 20_000 },
      );
    }, 120_000);

    it('a session read lays a growing line of calls end to end: each prompt shares memory with the call it extends', () => {
      const written = writeGrowingSession(workspace.open(), longTurns);
      const calls = workspace.open().listCalls('long');
      expectReadBack(workspace.open(), written, calls);
      // prompt k+1 = prompt k ++ completion k ++ one id: the same array, so comparing them compares memory with itself
      let shared = 0;
      for (let index = 1; index < calls.length; index++) {
        const previous = calls[index - 1]?.completionTokenIds as Int32Array;
        const prompt = calls[index]?.promptTokenIds as Int32Array;
        if (prompt.buffer === previous.buffer && previous.byteOffset === prompt.byteOffset + (prompt.length - 1 - previous.length) * 4) shared++;
      }
      // only where the arena doubled does a call sit in a new array (about log2 of the session's ids)
      expect(shared).toBeGreaterThan(calls.length - 20);
      expect(new Set(calls.map((call) => call.promptTokenIds?.buffer)).size).toBeLessThan(20);
    });

    it('a session read gives a call that leaves its parent midway its own array, and the parent keeps its ids', () => {
      const store = workspace.open();
      const first = store.beginCall(sampleBeginInput({ sessionId: 'fork' })).callId;
      store.finishCall(first, sampleFinishInput({ promptTokenIds: [1, 2, 3, 4], completionTokenIds: [5, 6], completionLogprobs: [0, 0] }));
      const next = store.beginCall(sampleBeginInput({ sessionId: 'fork' })).callId;
      store.finishCall(next, sampleFinishInput({ promptTokenIds: [1, 2, 3, 4, 5, 6, 7], completionTokenIds: [8], completionLogprobs: [0] }));
      const third = store.beginCall(sampleBeginInput({ sessionId: 'fork' })).callId;
      store.finishCall(third, sampleFinishInput({ promptTokenIds: [1, 2, 3, 4, 5, 6, 7, 8, 9], completionTokenIds: [10], completionLogprobs: [0] }));
      // a retry of the first turn with another reply, and a rewrite that leaves it inside the prompt
      const retry = store.beginCall(sampleBeginInput({ sessionId: 'fork' })).callId;
      store.finishCall(retry, sampleFinishInput({ promptTokenIds: [1, 2, 3, 4], completionTokenIds: [9, 9], completionLogprobs: [0, 0] }));
      const rewrite = store.beginCall(sampleBeginInput({ sessionId: 'fork' })).callId;
      store.finishCall(rewrite, sampleFinishInput({ promptTokenIds: [1, 2, 30, 40], completionTokenIds: [50], completionLogprobs: [0] }));
      store.close();
      const calls = workspace.open().listCalls('fork');
      expect(calls.map((call) => [Array.from(call.promptTokenIds ?? []), Array.from(call.completionTokenIds ?? [])])).toEqual([
        [
          [1, 2, 3, 4],
          [5, 6],
        ],
        [[1, 2, 3, 4, 5, 6, 7], [8]],
        [[1, 2, 3, 4, 5, 6, 7, 8, 9], [10]],
        [
          [1, 2, 3, 4],
          [9, 9],
        ],
        [[1, 2, 30, 40], [50]],
      ]);
      // the first call's array is its own size; the second grows it (doubling), the third extends the second in place
      const [one, two, three, retried, rewritten] = calls.map((call) => call.promptTokenIds?.buffer);
      expect(three).toBe(two);
      for (const fork of [retried, rewritten]) expect([one, two]).not.toContain(fork);
      expect(retried).not.toBe(rewritten);
    });

    it('a prompt extending the previous call stores only its new ids, so a long session costs linear space', () => {
      const written = writeGrowingSession(workspace.open(), longTurns);
      const rows = readLinks(workspace);
      expect(rows.map((row) => row.tail.length / 4)).toEqual([50, ...Array<number>(longTurns - 1).fill(1)]);
      expect(rows.slice(1).every((row, index) => row.parent === rows[index]?.id)).toBe(true);

      // Cold reads walk the chain (999 deep on SQLite) in a loop: no recursion limit, each id copied once.
      const last = written[written.length - 1] as Written;
      expect(Array.from(workspace.open().getCall(last.callId)?.promptTokenIds ?? [])).toEqual(last.prompt);
      const cold = workspace.open();
      expectReadBack(cold, written, cold.listCalls('long'));
    });

    it('a retried identical prompt is stored as an empty tail pointing at the first try', () => {
      const store = workspace.open();
      const prompt = [5, 6, 7, 8];
      const first = store.beginCall(sampleBeginInput()).callId;
      store.finishCall(first, sampleFinishInput({ promptTokenIds: prompt }));
      const retry = store.beginCall(sampleBeginInput()).callId;
      store.finishCall(retry, sampleFinishInput({ promptTokenIds: prompt }));
      store.close();
      const row = workspace.inspect((database) =>
        database
          .prepare('SELECT prompt_parent_id AS parent, prompt_prefix_length AS prefix, length(prompt_tail) AS tail FROM calls WHERE id = ?')
          .get(retry),
      );
      expect(row).toEqual({ parent: first, prefix: 4, tail: 0 });
      expect(Array.from(workspace.open().getCall(retry)?.promptTokenIds ?? [])).toEqual(prompt);
    });

    it('prompts of other sessions are never used as parents', () => {
      const store = workspace.open();
      const prompt = [1, 2, 3, 4, 5];
      store.finishCall(store.beginCall(sampleBeginInput({ sessionId: 'a' })).callId, sampleFinishInput({ promptTokenIds: prompt }));
      const other = store.beginCall(sampleBeginInput({ sessionId: 'b' })).callId;
      store.finishCall(other, sampleFinishInput({ promptTokenIds: prompt }));
      store.close();
      const row = workspace.inspect((database) =>
        database.prepare('SELECT prompt_parent_id AS parent, length(prompt_tail) / 4 AS tail FROM calls WHERE id = ?').get(other),
      );
      expect(row).toEqual({ parent: null, tail: 5 });
    });
  });
}

// SQLite only: it counts the row reads of the chain walker (prompt-chain.ts, the same code on both engines) through
// better-sqlite3's statements; the walk's results are checked on both engines above
describe('sqlite: the cost of a cold chain walk', () => {
  const workspace = workspaceForEachTest('sqlite');

  it('reading a 1,000-deep chain backwards from a cold cache reads a bounded number of rows per call', () => {
    const written = writeGrowingSession(workspace.open(), 1_000);
    const links = readLinks(workspace);
    const database = new Database(workspace.databasePath, { readonly: true });
    let rowReads = 0;
    const prepare = database.prepare.bind(database);
    database.prepare = ((source: string) => {
      const statement = prepare(source);
      const get = statement.get.bind(statement);
      statement.get = (...parameters: unknown[]) => {
        rowReads++;
        return get(...parameters);
      };
      return statement;
    }) as typeof database.prepare;
    const delta = createPromptDelta({ database, cache: new SequenceCache() });
    for (let index = links.length - 1; index >= 0; index--) {
      const link = links[index] as LinkRow;
      const prompt = delta.decode({ parentId: link.parent, prefixLength: link.prefix, tail: link.tail });
      expect(Array.from(prompt)).toEqual(written[index]?.prompt);
    }
    database.close();
    // Without cached checkpoints this walk reads 1 + 2 + ... + 999 = 499,500 rows.
    expect(rowReads).toBeLessThan(links.length * 20);
  });
});
