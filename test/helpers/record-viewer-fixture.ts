import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import type { RolloutSession } from '../../gateway/rollouts/rollout-api.js';
import { createSimBackend, type SimBackend, type SimScript } from '../../sim/index.js';
import { recordedChat } from '../reconstruct/chat-through-gateway.js';
import { makeTempDir } from './temp-dir.js';
import type { Message } from './record-export-fixture.js';

/**
 * What the viewer's browser tests look at, recorded through the gateway and the simulator (real Qwen3 tokenizer and
 * template), every session ended `completed`, with fixed session ids and scripted replies so every run records the same tokens (and the screenshots
 * in docs/screenshots/ stay the same but for the times and the tool calls' ids, random as vLLM's):
 * - `coding-agent`: a three-call tool session (read a file, run the tests, answer), streamed, reasoning sent back,
 *   so it merges into one sample;
 * - `compacted-agent`: two calls of a tool rollout, then the harness compacts its history into a summary and asks
 *   again: a `history-edited` break, two merge samples;
 * - group `task-sum`: four rollouts of one task (policy `v1`), rewards 1, 0, 1, 0.5 posted through the rollout API;
 *   the second adds the wrong numbers, so the rollouts part after their shared prompt.
 */
export interface ViewerFixture {
  /** the database, closed by the gateway unless `keepGateway`: open it with openStore({ path, readonly: true }) */
  dbPath: string;
  /** the model the calls named (its tokenizer decodes the tokens' text) */
  model: string;
  sessions: { tools: string; edited: string; group: string[] };
  groupId: string;
  rewards: number[];
  /** the gateway and simulator, still up when recorded with `keepGateway` (closed by `remove`) */
  gateway: Gateway | null;
  sim: SimBackend | null;
  remove(): Promise<void>;
}

export const VIEWER_FIXTURE_MODEL = 'Qwen/Qwen3-8B';

const TOOLS = [
  tool('read_file', 'Reads a file of the repository.', { path: { type: 'string' } }),
  tool('run_tests', 'Runs the test suite and prints the summary.', {}),
  tool('calculator', 'Adds two integers.', { a: { type: 'integer' }, b: { type: 'integer' } }),
];

const SOURCE = [
  'export function sum(values: number[]): number {',
  '  let total = 0;',
  '  for (let index = 1; index < values.length; index++) total += values[index];',
  '  return total;',
  '}',
].join('\n');

const SCRIPT: SimScript = {
  replies: [
    // coding-agent
    {
      match: { lastUserContains: 'failing test' },
      reasoning: 'The test of sum fails. I should read src/sum.ts first.',
      toolCalls: [{ name: 'read_file', arguments: { path: 'src/sum.ts' } }],
    },
    {
      match: { lastToolResultContains: 'export function sum' },
      reasoning: 'The loop starts at index 1, so the first value is skipped. After fixing it I run the tests.',
      toolCalls: [{ name: 'run_tests', arguments: {} }],
    },
    { match: { lastToolResultContains: 'passed' }, content: 'Fixed: `sum` now starts at the first element, and all 12 tests pass.' },
    // compacted-agent (its re-ask after the compaction), and the group's rollouts: the second one adds the wrong numbers
    { match: { lastUserContains: 'Check again' }, times: 'forever', content: 'Still 42.' },
    { match: { lastToolResultContains: '42' }, times: 'forever', reasoning: 'The calculator says 42.', content: 'The answer is 42.' },
    { match: { lastToolResultContains: '41' }, times: 'forever', reasoning: 'The calculator says 41.', content: 'The answer is 41.' },
    { match: { lastUserContains: '17 + 25' }, reasoning: 'I will use the tool.', toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 25 } }] },
    { match: { lastUserContains: '17 + 25' }, reasoning: 'I will use the tool.', toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 25 } }] },
    { match: { lastUserContains: '17 + 25' }, reasoning: 'Adding with the tool.', toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 24 } }] },
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
 * Records the viewer's fixture. With `keepGateway` the gateway and simulator stay up (for a test that records more
 * while a page watches); `gatewayOptions` go to createGateway (e.g. the viewer's own option on `serve --ui`).
 *
 * @example
 * const fixture = await recordViewerFixture();
 * const store = openStore({ path: fixture.dbPath, readonly: true });
 */
export async function recordViewerFixture(options: { keepGateway?: boolean; gatewayOptions?: Record<string, unknown> } = {}): Promise<ViewerFixture> {
  const temp = makeTempDir('tokentap-viewer-');
  const sim = await createSimBackend({ script: SCRIPT, acceptAnyModel: true });
  const simUrl = await sim.listen();
  const dbPath = temp.file('tokentap.db');
  const gateway = createGateway({ backendUrl: simUrl, db: dbPath, port: 0, logLevel: 'silent', ...options.gatewayOptions });
  await gateway.listen();
  const remove = async (): Promise<void> => {
    await gateway.close();
    await sim.close();
    temp.remove();
  };
  const rewards = [1, 0, 1, 0.5];
  const group = rewards.map((_, index) => `sum-rollout-${index + 1}`);
  try {
    await gateway.setPolicyVersion('v1');
    const coding = await gateway.createSession({ id: 'coding-agent', tags: ['coding'], task: { repo: 'example/sum' } });
    await runCodingAgent(coding);
    await coding.end('completed');
    const compacted = await gateway.createSession({ id: 'compacted-agent' });
    await runSumRollout(compacted, { editHistory: true });
    await compacted.end('completed');
    await gateway.declareGroup('task-sum', { expectedSize: rewards.length });
    for (const [index, reward] of rewards.entries()) {
      const session = await gateway.createSession({ id: group[index]!, groupId: 'task-sum', task: { prompt: '17 + 25?' }, split: 'train' });
      await runSumRollout(session, { editHistory: false });
      await session.reward(reward);
      await session.end('completed');
    }
  } catch (error) {
    await remove();
    throw error;
  }
  if (options.keepGateway !== true) {
    await gateway.close();
    await sim.close();
  }
  const kept = options.keepGateway === true;
  return {
    dbPath,
    model: VIEWER_FIXTURE_MODEL,
    sessions: { tools: 'coding-agent', edited: 'compacted-agent', group },
    groupId: 'task-sum',
    rewards,
    gateway: kept ? gateway : null,
    sim: kept ? sim : null,
    remove: kept ? remove : async () => temp.remove(),
  };
}

async function runCodingAgent(session: RolloutSession): Promise<void> {
  const messages: Message[] = [
    { role: 'system', content: 'You are a coding agent. Use the tools to inspect and test the repository.' },
    { role: 'user', content: 'There is a failing test in the sum module. Please fix it.' },
  ];
  const results: Record<string, string> = { read_file: SOURCE, run_tests: 'Test Files  3 passed (3)\n     Tests  12 passed (12)' };
  for (let turn = 0; turn < 3; turn++) {
    const reply = await chat(session, messages, true);
    messages.push(reply);
    if (reply.tool_calls === undefined) return;
    for (const call of reply.tool_calls) messages.push({ role: 'tool', tool_call_id: call.id, content: results[call.function.name] ?? '' });
  }
}

/** The agent loop of one rollout: tool call, tool result, answer (and a re-ask after dropping the reasoning, if editing). */
async function runSumRollout(session: RolloutSession, options: { editHistory: boolean }): Promise<void> {
  const messages: Message[] = [{ role: 'user', content: 'What is 17 + 25? Use the calculator.' }];
  const first = await chat(session, messages, false);
  messages.push(first);
  for (const call of first.tool_calls ?? []) {
    const { a, b } = JSON.parse(call.function.arguments) as { a: number; b: number };
    messages.push({ role: 'tool', tool_call_id: call.id, content: String(a + b) });
  }
  messages.push(await chat(session, messages, false));
  if (!options.editHistory) return;
  // the harness compacts its history (the tool's exchange becomes a summary): the chain breaks where the summary
  // starts, and a second sample starts there
  const compacted: Message[] = [
    messages[0]!,
    { role: 'user', content: 'Summary so far: the calculator said 42.' },
    { role: 'user', content: 'Check again, please.' },
  ];
  await chat(session, compacted, false);
}

async function chat(session: RolloutSession, messages: Message[], stream: boolean): Promise<Message> {
  const { message } = await recordedChat(session.openai.baseURL, { model: VIEWER_FIXTURE_MODEL, messages, tools: TOOLS }, stream, {
    authorization: `Bearer ${session.apiKey}`,
  });
  const content = message.content ?? '';
  return {
    role: 'assistant',
    content: content.trim() === '' ? null : content,
    ...(message.reasoning === undefined ? {} : { reasoning: message.reasoning }),
    ...(message.tool_calls === undefined || message.tool_calls.length === 0 ? {} : { tool_calls: message.tool_calls }),
  };
}

function tool(name: string, description: string, properties: Record<string, unknown>): Record<string, unknown> {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required: Object.keys(properties) } } };
}
