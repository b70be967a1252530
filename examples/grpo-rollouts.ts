/**
 * `npm run example:grpo`: a GRPO rollout loop against the simulator. Eight rollouts of one task run at once, each
 * in its own session of one group (temperature forced to 1 for the whole group); each agent uses a calculator
 * tool on the `openai` client, gets a reward from its answer, and ends its session. `waitForGroup` resolves when
 * all eight are done, and the group is ready for export: its samples are printed with their rewards and the
 * group-normalized advantages a GRPO trainer would compute.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { createGateway, type GroupInfo, type RolloutApi, type RolloutSession, type Sample, type Store } from '../index.js';
import { createSimBackend, type SimScript } from '../sim/index.js';
import { exportSamples } from '../export/export-samples.js';

export const TASK = { id: 'add-17-25', prompt: 'What is 17 + 25? Use the calculator, then answer with the number only.', answer: '42' };

const CALCULATOR: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Adds two integers.',
    parameters: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
  },
};

/**
 * The simulated policy: every rollout calls the calculator; then, in the order answers are drawn, five answer
 * right and three do not, the spread of rewards a group needs for a non-zero advantage.
 */
export const GRPO_SCRIPT: SimScript = {
  replies: [
    { match: { lastToolResultContains: '42' }, times: 5, reasoning: 'The calculator says 42.', content: '42' },
    { match: { lastToolResultContains: '42' }, times: 3, reasoning: 'I think it is a bit more.', content: 'It is 43.' },
    {
      match: { lastUserContains: '17 + 25' },
      times: 'forever',
      reasoning: 'I will add them with the tool.',
      toolCalls: [{ name: 'calculator', arguments: { a: 17, b: 25 } }],
    },
  ],
  otherwise: 'error',
};

/**
 * The reply as it goes back into the history. vLLM returns the reasoning in `reasoning` and reads it back from
 * there; sending it back (and no whitespace-only content) keeps each prompt an exact extension of the last one,
 * so the rollout becomes one merged training sample instead of one per call.
 */
function historyMessage(message: ChatCompletionMessage | undefined, calls: ChatCompletionMessageToolCall[]): ChatCompletionMessageParam {
  const content = message?.content ?? '';
  const reasoning = (message as { reasoning?: string } | undefined)?.reasoning;
  return {
    role: 'assistant',
    content: content.trim() === '' ? null : content,
    ...(reasoning === undefined ? {} : { reasoning }),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  } as ChatCompletionMessageParam;
}

/** One rollout: the agent loop on the session's own base URL and key. Returns the final answer. */
export async function runRollout(session: RolloutSession, model: string): Promise<string> {
  const client = new OpenAI({ ...session.openai, maxRetries: 2 });
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: TASK.prompt }];
  for (let turn = 0; turn < 4; turn++) {
    const completion = await client.chat.completions.create({ model, messages, tools: [CALCULATOR] });
    const message = completion.choices[0]?.message;
    const calls = (message?.tool_calls ?? []).filter((call) => call.type === 'function');
    messages.push(historyMessage(message, calls));
    if (calls.length === 0) return message?.content ?? '';
    for (const call of calls) {
      const { a, b } = JSON.parse(call.function.arguments) as { a: number; b: number };
      messages.push({ role: 'tool', tool_call_id: call.id, content: String(a + b) });
    }
  }
  throw new Error('no answer after 4 turns');
}

/**
 * Runs `size` rollouts of the task as one group and resolves with the complete group. Works the same on
 * `createGateway(...)` and on `connectGateway(url, { adminToken })`.
 *
 * @example const group = await runGroup(gateway, { groupId: 'step-0:add-17-25', size: 8, model: 'Qwen/Qwen3-8B' });
 */
export async function runGroup(api: RolloutApi, options: { groupId: string; size: number; model: string }): Promise<GroupInfo> {
  await api.declareGroup(options.groupId, { expectedSize: options.size, metadata: { task: TASK.id } });
  const rollouts = Array.from({ length: options.size }, async () => {
    const session = await api.createSession({ groupId: options.groupId, task: TASK, split: 'train', sampling: { temperature: 1 } });
    try {
      const answer = await runRollout(session, options.model);
      await session.reward({ correct: answer.trim() === TASK.answer ? 1 : 0 });
      await session.end('completed');
    } catch (error) {
      // a rollout that broke still ends, so the group completes; a trainer may mask it
      await session.end('failed');
      throw error;
    }
  });
  await Promise.allSettled(rollouts);
  return api.waitForGroup(options.groupId);
}

/** A sample with the advantage GRPO gives its rollout: (reward - group mean) / (group std + 1e-6). */
export interface ScoredSample {
  sample: Sample;
  advantage: number;
}

/**
 * The group's training samples as the export pipeline hands them to a trainer adapter (docs/export.md): merged,
 * with GRPO advantages over the group and per-rollout loss weights.
 *
 * @example for (const { sample, advantage } of groupSamples(gateway.store, group)) console.log(sample.reward, advantage);
 */
export function groupSamples(store: Store, group: GroupInfo): ScoredSample[] {
  const exported = exportSamples(store, { filters: { groupIds: [group.id] }, strategy: 'merge', advantage: { estimator: 'grpo' } });
  return [...exported].map(({ sample, advantage }) => ({ sample, advantage: advantage ?? 0 }));
}

/**
 * The whole example: simulator, gateway, one group of eight, the samples printed.
 *
 * @example await runGrpoExample({ print: console.log });
 */
export async function runGrpoExample(options: { print?: (line: string) => void; size?: number } = {}): Promise<ScoredSample[]> {
  const print = options.print ?? ((line: string) => void process.stdout.write(line + '\n'));
  const folder = mkdtempSync(join(tmpdir(), 'tokentap-grpo-'));
  const sim = await createSimBackend({ script: GRPO_SCRIPT, acceptAnyModel: true });
  const gateway = createGateway({ backendUrl: await sim.listen(), db: join(folder, 'grpo.db'), port: 0, logLevel: 'warn' });
  try {
    await gateway.listen();
    await gateway.setPolicyVersion('step-0');
    const group = await runGroup(gateway, { groupId: `step-0:${TASK.id}`, size: options.size ?? 8, model: 'Qwen/Qwen3-8B' });
    print(`group ${group.id}: ${group.sessions.length} rollouts, complete ${group.complete}`);
    const scored = groupSamples(gateway.store, group);
    for (const { sample, advantage } of scored) {
      const trained = sample.lossMask.reduce((sum, bit) => sum + bit, 0);
      const versions = [...new Set(sample.policyVersions.filter((version) => version !== null))].join(',');
      print(
        `  ${sample.rolloutId.slice(0, 8)}  reward ${String(sample.reward).padStart(2)}  advantage ${advantage >= 0 ? '+' : ''}${advantage.toFixed(3)}  ${sample.tokens.length} tokens (${trained} trained, ${sample.callIds.length} calls)  policy ${versions}  ${sample.status}`,
      );
    }
    return scored;
  } finally {
    await gateway.close();
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runGrpoExample().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}
