import { afterAll, beforeAll } from 'vitest';
import { createGateway } from '../../gateway/create-gateway.js';
import { openStore, type Store } from '../../store/index.js';
import type { RolloutSession } from '../../gateway/rollouts/rollout-api.js';
import { createSimBackend, type SimScript } from '../../sim/index.js';
import { makeTempDir } from './temp-dir.js';
import { recordedChat } from '../reconstruct/chat-through-gateway.js';

/** The rollouts the fixture recorded, as a test expects to find them in the export. */
export interface FixtureRollout {
  sessionId: string;
  groupId: string | null;
  reward: number | null;
  status: 'completed' | 'failed';
  /** merged samples the rollout reconstructs into (2 for the one whose history was edited) */
  mergedSamples: number;
  tags: string[];
  split: 'train' | 'val' | null;
  policyVersion: string;
}

export interface ExportFixture {
  /** the database, closed by the gateway: open it with openStore({ path, readonly: true }) */
  dbPath: string;
  /** a folder for the test's output files (removed by `remove`) */
  dir: string;
  rollouts: FixtureRollout[];
  remove(): void;
}

const MODEL = 'Qwen/Qwen3-8B';
const CALCULATOR = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Adds two integers.',
    parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
  },
};
const SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: '42' }, times: 'forever', reasoning: 'The calculator says 42.', content: 'The answer is 42.' },
    { match: { lastUserContains: 'Check again' }, times: 'forever', content: 'Still 42.' },
    {
      match: { lastUserContains: '17 + 25' },
      times: 'forever',
      reasoning: 'I will use the tool.',
      toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 25 } }],
    },
  ],
  otherwise: 'error',
};

/**
 * Records a small, real RL dataset through the gateway and the simulator (real Qwen3 tokenizer and template),
 * for export tests. Every rollout is a two-call tool conversation (tool call, tool result, answer), streamed
 * or not, with reasoning sent back so the calls merge into one sample:
 * - group `task-a` (3 rollouts, policy `v1`, tags ['math'], split train): rewards 1, 0, 1; the third rollout
 *   then edits its history (drops the reasoning and asks again), so it reconstructs into 2 merged samples;
 * - group `task-b` (2 rollouts, policy `v2`, tags ['math', 'hard']): rewards 0.5 and 0.5 (zero variance);
 * - an ungrouped rollout (policy `v2`, tags ['eval'], split val) with reward 0.25;
 * - a rollout in no group that failed (ended `failed`, no reward).
 *
 * @example
 * const fixture = await recordExportFixture();
 * const store = openStore({ path: fixture.dbPath, readonly: true });
 */
export async function recordExportFixture(): Promise<ExportFixture> {
  const temp = makeTempDir('tokentap-export-');
  const sim = await createSimBackend({ script: SCRIPT, acceptAnyModel: true });
  const simUrl = await sim.listen();
  const gateway = createGateway({ backendUrl: simUrl, db: temp.file('tokentap.db'), port: 0, logLevel: 'silent' });
  await gateway.listen();
  const rollouts: FixtureRollout[] = [];
  try {
    await gateway.setPolicyVersion('v1');
    await gateway.declareGroup('task-a', { expectedSize: 3 });
    for (const [index, reward] of [1, 0, 1].entries()) {
      const session = await gateway.createSession({ groupId: 'task-a', tags: ['math'], split: 'train', task: { prompt: '17 + 25?' } });
      const edit = index === 2;
      await runToolRollout(session, { stream: index === 1, editHistory: edit });
      await session.reward(reward);
      await session.end('completed');
      rollouts.push({
        sessionId: session.id,
        groupId: 'task-a',
        reward,
        status: 'completed',
        mergedSamples: edit ? 2 : 1,
        tags: ['math'],
        split: 'train',
        policyVersion: 'v1',
      });
    }
    await gateway.setPolicyVersion('v2');
    await gateway.declareGroup('task-b', { expectedSize: 2 });
    for (let index = 0; index < 2; index++) {
      const session = await gateway.createSession({ groupId: 'task-b', tags: ['math', 'hard'], split: 'train' });
      await runToolRollout(session, { stream: index === 0, editHistory: false });
      await session.reward(0.5);
      await session.end('completed');
      rollouts.push({
        sessionId: session.id,
        groupId: 'task-b',
        reward: 0.5,
        status: 'completed',
        mergedSamples: 1,
        tags: ['math', 'hard'],
        split: 'train',
        policyVersion: 'v2',
      });
    }
    const single = await gateway.createSession({ tags: ['eval'], split: 'val' });
    await runToolRollout(single, { stream: false, editHistory: false });
    await single.reward(0.25);
    await single.end('completed');
    rollouts.push({
      sessionId: single.id,
      groupId: null,
      reward: 0.25,
      status: 'completed',
      mergedSamples: 1,
      tags: ['eval'],
      split: 'val',
      policyVersion: 'v2',
    });
    const failed = await gateway.createSession({});
    await runToolRollout(failed, { stream: false, editHistory: false });
    await failed.end('failed');
    rollouts.push({
      sessionId: failed.id,
      groupId: null,
      reward: null,
      status: 'failed',
      mergedSamples: 1,
      tags: [],
      split: null,
      policyVersion: 'v2',
    });
  } finally {
    await gateway.close();
    await sim.close();
  }
  return { dbPath: temp.file('tokentap.db'), dir: temp.path, rollouts, remove: temp.remove };
}

/** A Chat Completions message as the fixtures' agent loops send and keep them. */
export interface Message {
  role: string;
  content: string | null;
  reasoning?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The agent loop of one rollout on its own session key: tool call, tool result, answer (and a re-ask if editing). */
async function runToolRollout(session: RolloutSession, options: { stream: boolean; editHistory: boolean }): Promise<void> {
  const messages: Message[] = [{ role: 'user', content: 'What is 17 + 25? Use the calculator.' }];
  const first = await chat(session, messages, options.stream);
  messages.push(first);
  for (const call of first.tool_calls ?? []) {
    const { a, b } = JSON.parse(call.function.arguments) as { a: number; b: number };
    messages.push({ role: 'tool', tool_call_id: call.id, content: String(a + b) });
  }
  messages.push(await chat(session, messages, options.stream));
  if (!options.editHistory) return;
  // the harness compacts its history (drops the reasoning it had sent back): the chain breaks, a second sample starts
  const edited = messages.map(({ reasoning: _dropped, ...message }) => message);
  edited.push({ role: 'user', content: 'Check again, please.' });
  await chat(session, edited, options.stream);
}

async function chat(session: RolloutSession, messages: Message[], stream: boolean): Promise<Message> {
  const { message } = await recordedChat(session.openai.baseURL, { model: MODEL, messages, tools: [CALCULATOR] }, stream, {
    authorization: `Bearer ${session.apiKey}`,
  });
  return toHistory({ role: 'assistant', ...message });
}

/** The reply as it goes back into the history: reasoning kept, whitespace-only content as null (see examples/grpo-rollouts.ts). */
function toHistory(message: Message): Message {
  const content = message.content ?? '';
  return {
    role: 'assistant',
    content: content.trim() === '' ? null : content,
    ...(message.reasoning === undefined ? {} : { reasoning: message.reasoning }),
    ...(message.tool_calls === undefined || message.tool_calls.length === 0 ? {} : { tool_calls: message.tool_calls }),
  };
}

/**
 * The fixture for one test file: recorded once before its tests, opened read-only, closed and removed after them.
 *
 * @example
 * const recorded = useExportFixture();
 * it('...', () => { exportSamples(recorded.store, {}); });
 */
export function useExportFixture(): { readonly fixture: ExportFixture; readonly store: Store } {
  const state = {} as { fixture: ExportFixture; store: Store };
  beforeAll(async () => {
    state.fixture = await recordExportFixture();
    state.store = openStore({ path: state.fixture.dbPath, readonly: true });
  }, 60_000);
  afterAll(() => {
    state.store?.close();
    state.fixture?.remove();
  });
  return state;
}
