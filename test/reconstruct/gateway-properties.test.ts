import { afterAll, beforeAll, describe, it } from 'vitest';
import fc from 'fast-check';
import type { CallRow } from '../../store/index.js';
import { loadHfTokenizer, qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { recordedChat, type AssistantMessage } from './chat-through-gateway.js';
import { expectSoundReconstruction } from './expect-reconstruction.js';
import type { Expectation } from './record-planned-session.js';

const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());

const TOOLS = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
  {
    type: 'function',
    function: {
      name: 'list_dir',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, depth: { type: 'integer', minimum: 1, maximum: 3 } },
        required: ['path'],
      },
    },
  },
];

/**
 * How the harness sends a reply back: `faithful` (reasoning kept, whitespace-only content dropped), `raw` (content
 * exactly as vLLM returned it, "\n\n" before a tool call included: the template then adds a "\n"), `no-reasoning`.
 */
const step = fc.record({
  agent: fc.integer({ min: 0, max: 1 }),
  stream: fc.boolean(),
  sendBack: fc.constantFrom('faithful', 'faithful', 'raw', 'no-reasoning'),
  retry: fc.integer({ min: 0, max: 3 }).map((draw) => draw === 0),
});
type Step = typeof step extends fc.Arbitrary<infer Value> ? Value : never;

let setup: GatewayWithSim;
beforeAll(async () => {
  setup = await startGatewayWithSim({ seed: 11 });
});
afterAll(async () => {
  await setup.close();
});

interface Played {
  callId: string;
  agent: number;
  /** the call before it whose reply this call's history carries; null for an agent's first call */
  previous: string | null;
  /** the second of two identical requests */
  retryOf?: string;
}

async function play(session: string, steps: readonly Step[]): Promise<Played[]> {
  const histories = [0, 1].map(
    (agent) =>
      [
        { role: 'system', content: agent === 0 ? 'You are the main agent.' : 'You are a sub-agent that lists files.' },
        { role: 'user', content: `Task for agent ${agent}: look around.` },
      ] as Array<Record<string, unknown>>,
  );
  const previous: Array<string | null> = [null, null];
  const played: Played[] = [];
  for (const [index, planned] of steps.entries()) {
    const messages = histories[planned.agent] as Array<Record<string, unknown>>;
    const body = { messages: structuredClone(messages), tools: TOOLS, seed: index };
    let { message, callId } = await recordedChat(setup.openaiBase(session), body, planned.stream);
    played.push({ callId, agent: planned.agent, previous: previous[planned.agent] as string | null });
    if (planned.retry) {
      const again = await recordedChat(setup.openaiBase(session), { ...body, seed: index + 1000 }, !planned.stream);
      played.push({ callId: again.callId, agent: planned.agent, previous: previous[planned.agent] as string | null, retryOf: callId });
      ({ message, callId } = again);
    }
    previous[planned.agent] = callId;
    messages.push(sentBack(message, planned.sendBack));
    for (const call of message.tool_calls ?? [])
      messages.push({ role: 'tool', tool_call_id: call.id, content: `output ${index} of ${call.function.name}` });
    if (message.tool_calls === undefined) messages.push({ role: 'user', content: `Step ${index} done; keep going.` });
  }
  return played;
}

function sentBack(message: AssistantMessage, mode: string): Record<string, unknown> {
  const blank = message.content === null || message.content.trim() === '';
  const content = mode === 'raw' ? message.content : blank ? null : message.content;
  return {
    role: 'assistant',
    content,
    ...(mode === 'no-reasoning' ? {} : { reasoning: message.reasoning }),
    ...(message.tool_calls === undefined ? {} : { tool_calls: message.tool_calls }),
  };
}

/** What merge must do with each call, read from the raw rows: join the previous call iff its tokens extend it. */
function expectationsOf(played: readonly Played[], rows: Map<string, CallRow>): Expectation[] {
  return played.map((entry, index): Expectation => {
    if (index === 0) return { callId: entry.callId, outcome: 'first', previousCallId: null };
    if (entry.retryOf !== undefined)
      return { callId: entry.callId, outcome: 'break', previousCallId: entry.retryOf, kinds: ['parallel-branch'], againstCallId: entry.retryOf };
    if (entry.previous === null) return { callId: entry.callId, outcome: 'break', previousCallId: null, kinds: ['parallel-branch'] };
    const prompt = rows.get(entry.callId)?.promptTokenIds as Int32Array;
    const before = rows.get(entry.previous) as CallRow;
    const sequence = [...(before.promptTokenIds as Int32Array), ...(before.completionTokenIds as Int32Array)];
    let shared = 0;
    while (shared < sequence.length && prompt[shared] === sequence[shared]) shared++;
    if (shared === sequence.length) return { callId: entry.callId, outcome: 'join', previousCallId: entry.previous };
    return {
      callId: entry.callId,
      outcome: 'break',
      previousCallId: entry.previous,
      kinds: ['template-rerender'],
      againstCallId: entry.previous,
      position: shared,
    };
  });
}

describe('reconstruction of random agent sessions recorded through the gateway and the simulator', () => {
  it('verifies every sample, trains every call once and breaks exactly where the recorded ids stop extending', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 9 }), async (steps) => {
        const session = `gateway-run-${run++}`;
        const played = await play(session, steps);
        const rows = new Map(setup.gateway.store.listCalls(session).map((row) => [row.id, row]));
        const trainable = played.map((entry) => entry.callId);
        expectSoundReconstruction(
          setup.gateway.store,
          session,
          { expectations: expectationsOf(played, rows), trainable, aborted: [], flagged: [] },
          tokenizer,
        );
      }),
      { numRuns: Number(process.env.RECONSTRUCT_GATEWAY_RUNS ?? 6) },
    );
  }, 120_000);
});
