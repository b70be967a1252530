import fc from 'fast-check';

/** A tool call the simulated model makes. */
export interface PlannedToolCall {
  name: 'read_file' | 'write_file';
  arguments: Record<string, string>;
}

/** What the simulated model answers in one turn (written out as Qwen3 writes it, thinking on). */
export interface PlannedReply {
  reasoning?: string;
  content?: string;
  toolCalls: PlannedToolCall[];
}

/**
 * Drift injected into how a reply is sampled, recorded or sent back:
 * - `strip-think`: the harness sends the reply back without its reasoning (the template then renders no `<think>`);
 * - `json-reformat`: the model printed its tool arguments compactly; the template re-prints them with spaces;
 * - `retokenize-reply`: the model sampled one word as two tokens; the next prompt tokenizes it canonically;
 * - `flag`: the backend dropped completion ids (old vLLM streaming tool calls): the call is flagged;
 * - `abort-retry`: the call is aborted midway, then sent again unchanged;
 * - `retry`: the call is sent twice; the harness goes on with the second reply;
 * - `length-cut` / `length-cut-edited`: the reply hits max tokens; the harness sends the partial text back as is,
 *   or with a marker put before it.
 */
export type ReplyDrift =
  'none' | 'strip-think' | 'json-reformat' | 'retokenize-reply' | 'flag' | 'abort-retry' | 'retry' | 'length-cut' | 'length-cut-edited';

/** Drift the harness applies to its history before a call: compaction into a summary, or dropping the oldest turn. */
export type HistoryDrift = 'none' | 'compaction' | 'truncate-history';

export interface PlannedStep {
  /** 0 is the main agent; others are sub-agents with their own system prompt, interleaved in the same session */
  agent: number;
  reply: PlannedReply;
  replyDrift: ReplyDrift;
  historyDrift: HistoryDrift;
  policyVersion: string | null;
}

export interface SessionPlan {
  agents: number;
  steps: PlannedStep[];
}

const WORDS = [
  'file',
  'notes',
  'the',
  'check',
  'value',
  'read',
  'write',
  'config',
  'tokens',
  'result',
  'path',
  'next',
  'test',
  'build',
  'module',
  'error',
];

const sentence = fc
  .array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 9 })
  .map((words) => `${words.join(' ').replace(/^./, (first) => first.toUpperCase())}.`);

const toolCall: fc.Arbitrary<PlannedToolCall> = fc.oneof(
  fc.constantFrom(...WORDS).map((word) => ({ name: 'read_file' as const, arguments: { path: `${word}.txt` } })),
  fc
    .tuple(fc.constantFrom(...WORDS), sentence)
    .map(([word, text]) => ({ name: 'write_file' as const, arguments: { path: `${word}.md`, content: text } })),
);

const reply: fc.Arbitrary<PlannedReply> = fc
  .record(
    {
      reasoning: fc.array(sentence, { minLength: 1, maxLength: 3 }).map((sentences) => sentences.join(' ')),
      content: fc.array(sentence, { minLength: 1, maxLength: 3 }).map((sentences) => sentences.join(' ')),
      toolCalls: fc.array(toolCall, { maxLength: 2 }),
    },
    { requiredKeys: ['toolCalls'] },
  )
  .map((planned) => (planned.content === undefined && planned.toolCalls.length === 0 ? { ...planned, content: 'Nothing left to do.' } : planned));

const replyDrift = fc.oneof(
  { weight: 8, arbitrary: fc.constant<ReplyDrift>('none') },
  fc.constantFrom<ReplyDrift>('strip-think', 'json-reformat', 'retokenize-reply', 'flag', 'abort-retry', 'retry', 'length-cut', 'length-cut-edited'),
);

const historyDrift = fc.oneof(
  { weight: 14, arbitrary: fc.constant<HistoryDrift>('none') },
  fc.constantFrom<HistoryDrift>('compaction', 'truncate-history'),
);

/**
 * Random sessions: one to three agents interleaved, each step one model turn with random drift.
 *
 * @example
 * fc.assert(fc.property(sessionPlan({ maxSteps: 12 }), (plan) => { ... }));
 */
export function sessionPlan(options: { maxSteps: number }): fc.Arbitrary<SessionPlan> {
  return fc.integer({ min: 1, max: 3 }).chain((agents) =>
    fc
      .array(
        fc.record({
          agent: fc.integer({ min: 0, max: agents - 1 }),
          reply,
          replyDrift,
          historyDrift,
          policyVersion: fc.constantFrom(null, 'policy-1', 'policy-2'),
        }),
        { minLength: 2, maxLength: options.maxSteps },
      )
      .map((steps) => ({ agents, steps })),
  );
}

const plannedReply = (content: string, toolCalls: PlannedToolCall[] = []): PlannedReply => ({
  reasoning: 'Read the notes first, then write the result.',
  content,
  toolCalls,
});
const plannedStep = (agent: number, reply: PlannedReply, replyDrift: ReplyDrift = 'none', historyDrift: HistoryDrift = 'none'): PlannedStep => ({
  agent,
  reply,
  replyDrift,
  historyDrift,
  policyVersion: null,
});

/**
 * One fixed session that injects every kind of drift the reconstruction names, each followed by a call that shows
 * it: replayed before the random plans so that the property test's coverage never rests on chance.
 */
export const EVERY_DRIFT_PLAN: SessionPlan = {
  agents: 2,
  steps: [
    plannedStep(0, plannedReply('Reading the config file.', [{ name: 'read_file', arguments: { path: 'config.txt' } }])),
    plannedStep(
      0,
      plannedReply('Writing the notes now.', [{ name: 'write_file', arguments: { path: 'notes.md', content: 'The build passed.' } }]),
      'strip-think',
    ),
    // a reply with tool calls: the template keeps its reasoning, so the split token is the only drift
    plannedStep(0, plannedReply('Reading the result module.', [{ name: 'read_file', arguments: { path: 'result.txt' } }]), 'retokenize-reply'),
    plannedStep(0, plannedReply('The notes are written.')),
    // right after a user message, so no earlier reasoning is dropped with the cut
    plannedStep(0, plannedReply('Checking the result module.'), 'length-cut-edited'),
    plannedStep(1, plannedReply('Reading the test file.', [{ name: 'read_file', arguments: { path: 'test.txt' } }])),
    plannedStep(0, plannedReply('Next the error path.', [{ name: 'read_file', arguments: { path: 'error.txt' } }]), 'flag'),
    plannedStep(0, plannedReply('The error path reads fine.'), 'retry'),
    plannedStep(0, plannedReply('Summing up the tokens.'), 'none', 'compaction'),
    plannedStep(0, plannedReply('All done.')),
  ],
};

/**
 * A counterexample once found (seed -40840216): a sub-agent's first call is flagged, then its history is compacted,
 * so its next prompt is told against the main agent's chain (a parallel branch), not the flagged call.
 */
export const FLAGGED_THEN_COMPACTED_PLAN: SessionPlan = {
  agents: 3,
  steps: [
    plannedStep(0, { toolCalls: [], content: 'Nothing left to do.' }),
    plannedStep(1, { toolCalls: [], content: 'Nothing left to do.' }, 'flag'),
    plannedStep(1, { toolCalls: [], content: 'Nothing left to do.' }, 'none', 'compaction'),
    plannedStep(0, { toolCalls: [], content: 'Nothing left to do.' }),
    plannedStep(0, { toolCalls: [], content: 'Nothing left to do.' }),
  ],
};

/**
 * A counterexample once found (seed 501496955): a reply cut by max tokens, then a history that drops the oldest turn,
 * so the next prompt shares more with the cut call (two replies starting alike) than with the previous one.
 */
export const CUT_THEN_TRUNCATED_PLAN: SessionPlan = {
  agents: 1,
  steps: [
    plannedStep(0, { toolCalls: [], content: 'Notes file. File file.' }, 'length-cut-edited'),
    plannedStep(0, { toolCalls: [], content: 'Notes file file.' }),
    plannedStep(0, { toolCalls: [], content: 'Nothing left to do.' }, 'none', 'truncate-history'),
    plannedStep(0, { toolCalls: [], content: 'Nothing left to do.' }),
  ],
};
