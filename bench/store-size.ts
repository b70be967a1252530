/**
 * bench/store-size: how many bytes the store adds per turn of a long agent session, to show that it
 * grows linearly although every request resends the whole history. Writes one 100-turn session shaped
 * like a coding agent's (a 4K-token system prompt, ~400 new tokens per turn, every request body resending
 * all earlier messages plus a ~20 KB `tools` array, a streamed response kept as raw SSE) into a temp
 * database and prints the bytes stored per turn, the last-decile / first-decile ratio, and the total
 * against the raw request bodies (the naive, quadratic size). Plain text, no assertions.
 *
 *   npm run bench:store-size
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore, type BeginCallInput, type FinishCallInput } from '../store/index.js';
import { createSeededRandom } from '../sim/seeded-random.js';

const TURNS = 100;
const SYSTEM_PROMPT_TOKENS = 4096;
const NEW_TOKENS_PER_TURN = 200; // the tool result or user message of each turn
const COMPLETION_TOKENS = 200; // the assistant's answer: ~400 new tokens per turn in all
const CHARS_PER_TOKEN = 4;
const WORDS = (
  'the of and to in is that for it as with was on be by this are from or have an which not but all can ' +
  'file function return const error value test build path string number import export class type module request ' +
  'response session token model store write read check list update create delete source line change result'
).split(' ');

const random = createSeededRandom(42).next;
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const text = (tokens: number): string => {
  const words: string[] = [];
  for (let length = 0; length < tokens * CHARS_PER_TOKEN; length += words[words.length - 1]!.length + 1) words.push(pick(WORDS));
  return words.join(' ');
};
const tokenIds = (count: number): number[] => Array.from({ length: count }, () => Math.floor(random() * 151_000));

/** ~20 KB of tool definitions, as Claude Code or Codex send with every request. */
function buildTools(): unknown[] {
  return Array.from({ length: 30 }, (_, index) => ({
    type: 'function',
    function: {
      name: `tool_${index}_${pick(WORDS)}`,
      description: text(90),
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: text(20) }, limit: { type: 'integer', description: text(10) } },
        required: ['path'],
      },
    },
  }));
}

function streamOf(answer: string, ids: number[]): string {
  const words = answer.split(' ');
  const events = ids.map((id, index) =>
    JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'Qwen/Qwen3-8B',
      choices: [{ index: 0, delta: { content: `${words[index % words.length]} ` }, logprobs: null, finish_reason: null }],
      token_ids: [id],
    }),
  );
  return `${events.map((event) => `data: ${event}\n\n`).join('')}data: [DONE]\n\n`;
}

interface Turn {
  begin: BeginCallInput;
  finish: FinishCallInput;
  rawBodyBytes: number;
}

/** Builds the session turn by turn: each prompt is the previous prompt, its completion and a new message. */
function buildSession(): Turn[] {
  const tools = buildTools();
  const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: text(SYSTEM_PROMPT_TOKENS) }];
  let prompt = tokenIds(SYSTEM_PROMPT_TOKENS);
  const turns: Turn[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    messages.push({ role: turn === 1 ? 'user' : 'tool', content: text(NEW_TOKENS_PER_TURN) });
    prompt = [...prompt, ...tokenIds(NEW_TOKENS_PER_TURN)];
    const requestBody = { model: 'claude-sonnet', messages: [...messages], tools, stream: true, max_tokens: 4096 };
    const backendRequestBody = { ...requestBody, model: 'Qwen/Qwen3-8B', return_token_ids: true, logprobs: true };
    const answer = text(COMPLETION_TOKENS);
    const completion = tokenIds(COMPLETION_TOKENS);
    turns.push({
      begin: {
        sessionId: 'bench-agent',
        frontDoor: 'openai-chat',
        path: '/v1/chat/completions',
        requestedModel: 'claude-sonnet',
        backendModel: 'Qwen/Qwen3-8B',
        stream: true,
        requestBody,
        backendRequestBody,
        samplingParams: { temperature: 1, top_p: 1, max_tokens: 4096 },
        metadata: { harness: 'bench' },
        startedAt: turn * 1000,
      },
      finish: {
        status: 'ok',
        tokenSource: 'backend',
        promptTokenIds: prompt,
        completionTokenIds: completion,
        completionLogprobs: completion.map(() => -random() * 3),
        finishReason: 'stop',
        stopReason: null,
        responseBody: { id: 'chatcmpl-bench', choices: [{ index: 0, message: { role: 'assistant', content: answer } }] },
        responseStream: streamOf(answer, completion),
        usage: { promptTokens: prompt.length, completionTokens: COMPLETION_TOKENS },
        error: null,
        httpStatus: 200,
        flags: [],
        timeToFirstTokenMs: 100,
        totalMs: 2000,
        endedAt: turn * 1000 + 900,
      },
      rawBodyBytes: Buffer.byteLength(JSON.stringify(requestBody)) + Buffer.byteLength(JSON.stringify(backendRequestBody)),
    });
    messages.push({ role: 'assistant', content: answer });
    prompt = [...prompt, ...completion];
  }
  return turns;
}

const toolsBytes = (turns: Turn[]): number => Buffer.byteLength(JSON.stringify((turns[0]?.begin.requestBody as { tools: unknown[] }).tools));
const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'tokentap-bench-store-'));
  const path = join(dir, 'bench.db');
  const turns = buildSession();
  const store = openStore({ path });
  // Payload bytes of every table and index (dbstat): exact per turn, unlike page-granular file sizes.
  const inspector = new Database(path, { readonly: true });
  const storedBytes = inspector.prepare<[], { bytes: number }>('SELECT sum(payload) AS bytes FROM dbstat');
  const perTurn: number[] = [];
  let before = storedBytes.get()?.bytes ?? 0;
  for (const turn of turns) {
    const { callId } = store.beginCall(turn.begin);
    store.finishCall(callId, turn.finish);
    const after = storedBytes.get()?.bytes ?? 0;
    perTurn.push(after - before);
    before = after;
  }
  inspector.close();
  store.close(); // checkpoints the WAL into the main file
  report(turns, perTurn, statSync(path).size);
  rmSync(dir, { recursive: true, force: true });
}

function report(turns: Turn[], perTurn: number[], fileBytes: number): void {
  const lines: string[] = [
    `store-size: one ${TURNS}-turn agent session (${SYSTEM_PROMPT_TOKENS}-token system prompt, ` +
      `~${NEW_TOKENS_PER_TURN + COMPLETION_TOKENS} new tokens per turn, ${kb(toolsBytes(turns))} of tools resent each turn)`,
    '',
  ];
  lines.push('turn  prompt ids  raw bodies  stored this turn');
  const shown = (turn: number): boolean => turn <= 10 || (turn >= 45 && turn <= 55) || turn >= 90;
  perTurn.forEach((bytes, index) => {
    const turn = turns[index] as Turn;
    if (!shown(index + 1)) return;
    const promptIds = (turn.finish.promptTokenIds as number[]).length;
    lines.push(
      `${String(index + 1).padStart(4)}  ${String(promptIds).padStart(10)}  ${kb(turn.rawBodyBytes).padStart(10)}  ${kb(bytes).padStart(16)}`,
    );
  });
  const firstDecile = mean(perTurn.slice(0, 10));
  const firstDecileAfterTurnOne = mean(perTurn.slice(1, 10));
  const lastDecile = mean(perTurn.slice(90, 100));
  const stored = perTurn.reduce((sum, bytes) => sum + bytes, 0);
  const raw = turns.reduce((sum, turn) => sum + turn.rawBodyBytes, 0);
  lines.push(
    '',
    `mean stored per turn: turns 1-10 ${kb(firstDecile)}, 2-10 ${kb(firstDecileAfterTurnOne)}, ` +
      `45-55 ${kb(mean(perTurn.slice(44, 55)))}, 91-100 ${kb(lastDecile)}`,
  );
  lines.push(
    `ratio last decile / first decile: ${(lastDecile / firstDecile).toFixed(2)} ` +
      `(${(lastDecile / firstDecileAfterTurnOne).toFixed(2)} against turns 2-10, leaving out turn 1's system prompt and tools)`,
  );
  lines.push(`total stored payload: ${kb(stored)}; database file after checkpoint: ${kb(fileBytes)}`);
  lines.push(`raw request bodies (harness + backend JSON, the naive quadratic size): ${kb(raw)}; ` + `file / raw = ${(fileBytes / raw).toFixed(3)}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
