/**
 * bench/make-store: a synthetic store of agent sessions for the reconstruction benchmarks, written once through the
 * store API and reused from `.tmp/bench-store-<params>.db` when present. Each session is a main agent of `turns`
 * calls over a shared `systemTokens`-token system prompt, each turn adding `turnTokens` tokens (half new context,
 * half completion), with drift injected at `driftRate` per turn: a re-rendered earlier turn (its first completion
 * ids dropped from the next prompt, as Qwen3 drops `<think>`), a compaction (the history replaced by a summary), a
 * retry (the same request twice) or a two-call sub-agent with its own system prompt.
 *
 *   node dist/bench/make-store.js --sessions 1000 --turns 50      # prints the path
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openStore, type Store } from '../store/index.js';
import { createSeededRandom } from '../sim/seeded-random.js';

export interface BenchStoreParams {
  sessions: number;
  turns: number;
  systemTokens: number;
  turnTokens: number;
  /** chance per turn of one drift event */
  driftRate: number;
}

export const DEFAULT_BENCH_STORE: BenchStoreParams = { sessions: 1000, turns: 50, systemTokens: 4096, turnTokens: 400, driftRate: 0.05 };

/**
 * The path of the store for these params, written first if it is not there yet (into a temp file, renamed when
 * complete, so an interrupted run never leaves a half store behind).
 *
 * @example
 * const path = makeBenchStore({ ...DEFAULT_BENCH_STORE, sessions: 100 });
 */
export function makeBenchStore(params: BenchStoreParams, directory = '.tmp'): string {
  const name = `bench-store-s${params.sessions}-t${params.turns}-p${params.systemTokens}-n${params.turnTokens}-d${params.driftRate}.db`;
  const path = join(directory, name);
  if (existsSync(path)) {
    // a store made by an older tokentap: one read-write open brings its schema up to date for the readers
    openStore({ path }).close();
    return path;
  }
  mkdirSync(directory, { recursive: true });
  const partial = `${path}.partial`;
  rmSync(partial, { force: true });
  const store = openStore({ path: partial });
  writeBenchSessions(store, params);
  store.close();
  renameSync(partial, path);
  for (const suffix of ['-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
  return path;
}

/**
 * Writes the sessions of `params` into an open store of either engine, one transaction per session, from the same
 * seed as makeBenchStore: two stores filled with the same params hold the same calls (bench/postgres.ts compares them).
 *
 * @example writeBenchSessions(openStore({ path: 'postgres://postgres@127.0.0.1:5432/bench' }), { ...DEFAULT_BENCH_STORE, sessions: 100 });
 */
export function writeBenchSessions(store: Store, params: BenchStoreParams): void {
  const random = createSeededRandom(params.sessions * 7919 + params.turns).next;
  const system = randomIds(random, params.systemTokens);
  for (let session = 0; session < params.sessions; session++) store.batch(() => writeSession(store, `bench-${session}`, system, params, random));
}

interface SessionWriter {
  store: Store;
  sessionId: string;
  random: () => number;
  messages: Array<{ role: string; content: string }>;
  prompt: Int32Array;
}

function writeSession(store: Store, sessionId: string, system: Int32Array, params: BenchStoreParams, random: () => number): void {
  const half = params.turnTokens >> 1;
  const writer: SessionWriter = { store, sessionId, random, messages: [{ role: 'system', content: 'bench system prompt' }], prompt: system };
  for (let turn = 0; turn < params.turns; turn++) {
    writer.messages.push({ role: turn === 0 ? 'user' : 'tool', content: `turn ${turn} input` });
    writer.prompt = concat(writer.prompt, randomIds(random, half));
    const completion = randomIds(random, half);
    recordCall(writer, completion);
    const drift = random() < params.driftRate ? Math.floor(random() * 4) : -1;
    if (drift === 2) recordCall(writer, randomIds(random, half)); // a retry: the same request again; the first reply is kept
    if (drift === 3) writeSubAgent(writer, params);
    writer.messages.push({ role: 'assistant', content: `turn ${turn} answer` });
    // a re-render drops the first ids of the reply from the history (e.g. its reasoning); a compaction replaces it all
    if (drift === 0) writer.prompt = concat(writer.prompt, completion.subarray(Math.min(8, completion.length - 1)));
    else if (drift === 1) {
      writer.messages = [
        { role: 'system', content: 'bench system prompt' },
        { role: 'user', content: `summary at turn ${turn}` },
      ];
      writer.prompt = concat(system, randomIds(random, half));
    } else writer.prompt = concat(writer.prompt, completion);
  }
}

function writeSubAgent(writer: SessionWriter, params: BenchStoreParams): void {
  const half = params.turnTokens >> 1;
  const saved = { messages: writer.messages, prompt: writer.prompt };
  writer.messages = [
    { role: 'system', content: 'sub-agent prompt' },
    { role: 'user', content: 'sub task' },
  ];
  writer.prompt = randomIds(writer.random, half * 2);
  for (let turn = 0; turn < 2; turn++) {
    const completion = randomIds(writer.random, half);
    recordCall(writer, completion);
    writer.messages.push({ role: 'assistant', content: `sub answer ${turn}` }, { role: 'tool', content: `sub input ${turn}` });
    writer.prompt = concat(writer.prompt, concat(completion, randomIds(writer.random, half)));
  }
  writer.messages = saved.messages;
  writer.prompt = saved.prompt;
}

function recordCall(writer: SessionWriter, completion: Int32Array): void {
  const body = { model: 'Qwen/Qwen3-8B', messages: writer.messages.slice() };
  const { callId } = writer.store.beginCall({
    sessionId: writer.sessionId,
    frontDoor: 'openai-chat',
    path: '/v1/chat/completions',
    requestedModel: 'bench',
    backendModel: 'Qwen/Qwen3-8B',
    stream: true,
    requestBody: body,
    backendRequestBody: body,
    samplingParams: {},
    metadata: {},
    startedAt: 0,
    policyVersion: null,
  });
  writer.store.finishCall(callId, {
    status: 'ok',
    tokenSource: 'backend',
    promptTokenIds: writer.prompt,
    completionTokenIds: completion,
    completionLogprobs: Float32Array.from(completion, () => -writer.random() * 3),
    finishReason: 'stop',
    stopReason: null,
    responseBody: { choices: [{ index: 0, message: { role: 'assistant', content: 'answer' }, finish_reason: 'stop' }] },
    usage: null,
    error: null,
    httpStatus: 200,
    flags: [],
    timeToFirstTokenMs: 1,
    totalMs: 2,
    endedAt: 1,
  });
}

function randomIds(random: () => number, count: number): Int32Array {
  return Int32Array.from({ length: count }, () => Math.floor(random() * 151_000));
}

function concat(left: Int32Array, right: Int32Array): Int32Array {
  const joined = new Int32Array(left.length + right.length);
  joined.set(left);
  joined.set(right, left.length);
  return joined;
}

/** Reads `--sessions --turns --system-tokens --turn-tokens --drift-rate` over the defaults. */
export function benchStoreParams(args: string[]): BenchStoreParams {
  const { values } = parseArgs({
    args,
    strict: false,
    options: {
      sessions: { type: 'string' },
      turns: { type: 'string' },
      'system-tokens': { type: 'string' },
      'turn-tokens': { type: 'string' },
      'drift-rate': { type: 'string' },
    },
  });
  const number = (value: unknown, fallback: number): number => (typeof value === 'string' ? Number(value) : fallback);
  return {
    sessions: number(values.sessions, DEFAULT_BENCH_STORE.sessions),
    turns: number(values.turns, DEFAULT_BENCH_STORE.turns),
    systemTokens: number(values['system-tokens'], DEFAULT_BENCH_STORE.systemTokens),
    turnTokens: number(values['turn-tokens'], DEFAULT_BENCH_STORE.turnTokens),
    driftRate: number(values['drift-rate'], DEFAULT_BENCH_STORE.driftRate),
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  process.stdout.write(`${makeBenchStore(benchStoreParams(process.argv.slice(2)))}\n`);
}
