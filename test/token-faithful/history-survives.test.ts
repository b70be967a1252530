import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { reconstructSession, verifySample } from '../../reconstruct/index.js';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import type { CallRow, FinishCallInput, Store } from '../../store/types.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { acquireMigratedDatabase, releaseMigratedDatabase } from '../helpers/test-postgres.js';
import { engineSuiteName, engineUnavailable, STORE_ENGINES, type StoreEngineName } from '../store/store-fixtures.js';
import { answerReply, expectPromptChain, MODEL, orderedScript, STEP_TOOL, stepReply, toolLoopTurn } from './token-faithful-fixtures.js';

/**
 * Histories survive (issue 16): a token-faithful session's history is rebuilt from the store when the gateway
 * serving its next call does not hold it (a restart, another gateway on the same database), so the session stays
 * one chain and exports as one sample.
 */

interface Running {
  gateway: Gateway;
  url: string;
}

let sim: SimBackend | undefined;
let temp: ReturnType<typeof makeTempDir> | undefined;
let postgresDb: string | undefined;
const open = new Set<Gateway>();

afterEach(async () => {
  for (const gateway of open) await gateway.close();
  open.clear();
  await sim?.close();
  sim = undefined;
  temp?.remove();
  temp = undefined;
  if (postgresDb !== undefined) releaseMigratedDatabase(postgresDb);
  postgresDb = undefined;
});

/** One simulator; gateways started with `start()` all write the same database (a SQLite file, or a PostgreSQL database). */
async function startSim(
  engine: StoreEngineName = 'sqlite',
): Promise<{ start: () => Promise<Running>; stop: (running: Running) => Promise<void>; simulator: SimBackend }> {
  temp = makeTempDir();
  if (engine === 'postgres') postgresDb = acquireMigratedDatabase();
  const db = postgresDb ?? temp.file('tokentap.db');
  const simulator = await createSimBackend({ acceptAnyModel: true });
  sim = simulator;
  const simUrl = await simulator.listen();
  return {
    simulator,
    async start() {
      const gateway = createGateway({
        backendUrl: simUrl,
        db,
        port: 0,
        logLevel: 'silent',
        tokenFaithful: '*',
        modelDir: qwen3TokenizerDir(),
        model: MODEL,
      });
      open.add(gateway);
      return { gateway, url: await gateway.listen() };
    },
    async stop(running) {
      open.delete(running.gateway);
      await running.gateway.close();
    },
  };
}

const TURNS = 4;
const ANSWER = 'All three notes are read.';
const SCRIPT = orderedScript([stepReply(1), stepReply(2), stepReply(3), answerReply(ANSWER)]);

/** One turn of a tool loop (examples/tool-agent.ts) against the gateway at `baseURL`; true when the model called a tool. */
async function chatTurn(baseURL: string, messages: ChatCompletionMessageParam[], stream: boolean): Promise<boolean> {
  const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0 });
  return (await toolLoopTurn(client, messages, stream)).called;
}

function firstMessages(): ChatCompletionMessageParam[] {
  return [
    { role: 'system', content: 'You read notes with the tool, one step at a time.' },
    { role: 'user', content: 'Read every note, then say you are done.' },
  ];
}

function modes(calls: CallRow[]): unknown[] {
  return calls.map((call) => call.metadata.tokenFaithful);
}

/** One chain, each call extending the one before, exported as one sample the verifier accepts. */
function expectOneSample(store: Store, session: string): CallRow[] {
  const calls = store.listCalls(session);
  expect(calls).toHaveLength(TURNS);
  expect(modes(calls)).toEqual([
    { mode: 'fresh', reason: 'first-call' },
    ...calls.slice(0, -1).map((call) => expect.objectContaining({ mode: 'extend', extends: call.id })),
  ]);
  expectPromptChain(calls);
  const samples = reconstructSession(store, session, { strategy: 'merge' });
  expect(samples).toHaveLength(1);
  expect(samples[0]!.callIds).toEqual(calls.map((call) => call.id));
  expect(verifySample(samples[0]!, calls)).toEqual({ ok: true });
  return calls;
}

describe('a token-faithful history rebuilt from the store', () => {
  it('survives a restart between every turn: each next call extends, and the session is one sample', async () => {
    const { start, stop, simulator } = await startSim();
    let running = await start();
    simulator.setScript(SCRIPT);
    const messages = firstMessages();
    for (let turn = 1; turn <= TURNS; turn++) {
      if (turn > 1) {
        await stop(running);
        running = await start();
      }
      const more = await chatTurn(`${running.url}/s/restarted/v1`, messages, turn % 2 === 0);
      expect(more).toBe(turn < TURNS);
    }
    expectOneSample(running.gateway.store, 'restarted');
    const health = (await (await fetch(`${running.url}/healthz`)).json()) as { tokenFaithful: Record<string, unknown> };
    expect(health.tokenFaithful).toMatchObject({ extend: 1, fresh: 0 });
  });

  // on PostgreSQL (issue 17, must-have 3) the two gateways are as two hosts of a fleet would be: each its own connections
  for (const engine of STORE_ENGINES) {
    it.skipIf(engineUnavailable(engine))(
      `holds across two gateways on one database serving alternate calls (Chat Completions, streamed and not), ${engineSuiteName(engine)}`,
      async () => {
        const { start, simulator } = await startSim(engine);
        const gateways = [await start(), await start()];
        simulator.setScript(SCRIPT);
        const messages = firstMessages();
        for (let turn = 1; turn <= TURNS; turn++) {
          await chatTurn(`${gateways[(turn - 1) % 2]!.url}/s/shared/v1`, messages, turn > 2);
        }
        const calls = expectOneSample(gateways[0]!.gateway.store, 'shared');
        expect(simulator.log.map((record) => record.endpoint)).toEqual(Array<string>(TURNS).fill('completions'));
        expect(calls.map((call) => Array.from(call.promptTokenIds!))).toEqual(simulator.log.map((record) => record.promptTokenIds));
      },
    );
  }

  it('holds across two gateways for an Anthropic Messages harness (the chat request is the front door translation)', async () => {
    const { start, simulator } = await startSim();
    const gateways = [await start(), await start()];
    simulator.setScript(SCRIPT);
    const tools = [
      { name: 'read_step', description: 'Read the note of one step.', input_schema: STEP_TOOL.function.parameters as Anthropic.Tool['input_schema'] },
    ];
    const messages: MessageParam[] = [{ role: 'user', content: 'Read every note, then say you are done.' }];
    for (let turn = 1; turn <= TURNS; turn++) {
      const client = new Anthropic({ baseURL: `${gateways[(turn - 1) % 2]!.url}/s/anthropic`, apiKey: 'sk-ant-fake', maxRetries: 0 });
      const params = {
        model: 'claude-test',
        max_tokens: 2000,
        system: 'Read notes.',
        messages,
        tools,
        thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      };
      const message = turn % 2 === 0 ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      messages.push({ role: 'assistant', content: message.content as MessageParam['content'] });
      const uses = message.content.filter((block) => block.type === 'tool_use');
      if (uses.length > 0)
        messages.push({ role: 'user', content: uses.map((block) => ({ type: 'tool_result' as const, tool_use_id: block.id, content: 'noted' })) });
    }
    expectOneSample(gateways[1]!.gateway.store, 'anthropic');
  });

  it('never extends a call whose end is not committed as ok: in progress, failed or aborted calls are skipped', async () => {
    const { start, simulator } = await startSim();
    const first = await start();
    const second = await start();
    simulator.setScript(orderedScript([stepReply(1), stepReply(2), stepReply(2), stepReply(2), stepReply(2)]));
    const messages = firstMessages();
    await chatTurn(`${first.url}/s/original/v1`, messages, false);
    const store = first.gateway.store;
    const [original] = store.listCalls('original');
    // the same call copied into other sessions, left in progress or ended otherwise than ok
    copyCall(store, original!, 'running', null);
    copyCall(store, original!, 'failed', 'backend_error');
    copyCall(store, original!, 'aborted', 'aborted');
    copyCall(store, original!, 'finished', 'ok');
    for (const session of ['running', 'failed', 'aborted', 'finished']) {
      await chatTurn(`${second.url}/s/${session}/v1`, [...messages], false);
    }
    const lastPlan = (session: string): unknown => store.listCalls(session).at(-1)!.metadata.tokenFaithful;
    expect(lastPlan('running')).toEqual({ mode: 'fresh', reason: 'first-call' });
    expect(lastPlan('failed')).toEqual({ mode: 'fresh', reason: 'first-call' });
    expect(lastPlan('aborted')).toEqual({ mode: 'fresh', reason: 'first-call' });
    // the same copy ended ok is extended: the three above were skipped for their status alone
    expect(lastPlan('finished')).toMatchObject({ mode: 'extend', extends: store.listCalls('finished')[0]!.id });
  });
});

/** Writes `call` again in `session`, as a gateway records it: begun, then ended with `status` (null: left in progress). */
function copyCall(store: Store, call: CallRow, session: string, status: FinishCallInput['status'] | null): void {
  const bodies = store.getCallBodies(call.id)!;
  const { callId } = store.beginCall({
    sessionId: session,
    frontDoor: call.frontDoor,
    path: call.path,
    requestedModel: call.requestedModel,
    backendModel: call.backendModel,
    stream: call.stream,
    requestBody: bodies.requestBody,
    backendRequestBody: bodies.backendRequestBody,
    chatRequestBody: bodies.chatRequestBody,
    samplingParams: call.samplingParams,
    metadata: call.metadata,
    startedAt: Date.now(),
  });
  if (status === null) return;
  store.finishCall(callId, {
    status,
    tokenSource: 'backend',
    promptTokenIds: Array.from(call.promptTokenIds!),
    completionTokenIds: Array.from(call.completionTokenIds!),
    completionLogprobs: call.completionLogprobs === null ? null : Array.from(call.completionLogprobs),
    finishReason: call.finishReason,
    stopReason: call.stopReason,
    responseBody: bodies.responseBody,
    usage: call.usage,
    error: status === 'ok' ? null : { message: 'cut' },
    httpStatus: 200,
    flags: [],
    timeToFirstTokenMs: null,
    totalMs: 1,
    endedAt: Date.now(),
  });
}
