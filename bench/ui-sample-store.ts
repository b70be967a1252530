/**
 * bench/ui-sample-store: the store bench/ui-first-screen.ts opens in the viewer: one recorded coding-agent session
 * per size, through the gateway and the simulator (real Qwen3 tokenizer and template), so the sample the page shows
 * has the shape of a real one: a system prompt with tools, a task, then turn after turn of a reasoning step and a
 * `read_file` call whose result is a source file of this repository (real code, in sorted order), until the
 * session's one merge sample reaches the size asked for. Non-streamed calls, reasoning sent back: one chain.
 *
 *   const { sessionId, tokens } = await recordReadingSession(store path, 'read-100k', 100_000);
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../gateway/create-gateway.js';
import { createSimBackend, type SimScript } from '../sim/index.js';

const MODEL = 'Qwen/Qwen3-8B';
/** the repository's root, from bench/ (tsx) or dist/bench/ (built) */
const ROOT = fileURLToPath(new URL(import.meta.url.includes('/dist/') ? '../../' : '../', import.meta.url));
/** the folders whose sources the agent reads, in this order */
const READ_FOLDERS = ['gateway', 'store', 'reconstruct', 'export', 'model-format', 'sim'];

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Reads a file of the repository and returns its text.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
];

export interface RecordedSessions {
  /** each session asked for, with the tokens of its merge sample (the last call's prompt and completion) */
  sessions: Array<{ sessionId: string; tokens: number; calls: number }>;
}

/**
 * Records one reading session per entry of `sizes` into the store at `db` (a file path): each ends once its sample
 * holds at least that many tokens.
 *
 * @example
 * const { sessions } = await recordReadingSessions('.tmp/ui-bench.db', [{ sessionId: 'read-1k', tokens: 1_000 }]);
 */
export async function recordReadingSessions(db: string, sizes: Array<{ sessionId: string; tokens: number }>): Promise<RecordedSessions> {
  const files = sourceFiles();
  // each reply reads the file after the one whose result came last; the task's first reply goes last, as its match
  // (the task) holds for every later request too
  const script: SimScript = {
    replies: [
      ...files.slice(1).map((path, index) => ({
        match: { lastToolResultContains: `// file: ${files[index]}\n` },
        times: 'forever' as const,
        reasoning: `That was ${files[index]}. Next I read ${path}.`,
        toolCalls: [{ name: 'read_file', arguments: { path } }],
      })),
      {
        match: { lastUserContains: 'Read the sources' },
        times: 'forever',
        reasoning: 'I start with the first source file.',
        toolCalls: [{ name: 'read_file', arguments: { path: files[0]! } }],
      },
    ],
    otherwise: 'error',
  };
  // served with a 128K window (Qwen3 with YaRN, as long-context agents run it); the default 40960 stops at 40K
  const sim = await createSimBackend({ script, acceptAnyModel: true, maxModelLen: 131_072 });
  const simUrl = await sim.listen();
  const gateway = createGateway({ backendUrl: simUrl, db, port: 0, logLevel: 'silent' });
  await gateway.listen();
  const sessions: RecordedSessions['sessions'] = [];
  try {
    for (const size of sizes) {
      const session = await gateway.createSession({ id: size.sessionId });
      const messages: Array<Record<string, unknown>> = [
        { role: 'system', content: 'You are a coding agent. Read what you need before you answer.' },
        { role: 'user', content: 'Read the sources of this repository one by one and summarise how a call is recorded.' },
      ];
      let tokens = 0;
      let calls = 0;
      while (tokens < size.tokens) {
        const { message, usage } = await chat(session.openai.baseURL, session.apiKey, messages);
        calls++;
        tokens = usage.prompt_tokens + usage.completion_tokens;
        messages.push(message);
        for (const call of message.tool_calls ?? []) {
          const path = (JSON.parse(call.function.arguments) as { path: string }).path;
          messages.push({ role: 'tool', tool_call_id: call.id, content: `// file: ${path}\n${readFileSync(join(ROOT, path), 'utf8')}` });
        }
      }
      await session.end('completed');
      sessions.push({ sessionId: size.sessionId, tokens, calls });
    }
  } finally {
    await gateway.close();
    await sim.close();
  }
  return { sessions };
}

interface ChatReply {
  message: {
    role: 'assistant';
    content: string | null;
    reasoning?: string;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  };
  usage: { prompt_tokens: number; completion_tokens: number };
}

async function chat(baseUrl: string, apiKey: string, messages: Array<Record<string, unknown>>): Promise<ChatReply> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ model: MODEL, messages, tools: TOOLS }),
  });
  if (response.status !== 200) throw new Error(`chat call failed: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { choices: Array<{ message: ChatReply['message'] }>; usage: ChatReply['usage'] };
  const message = body.choices[0]!.message;
  // what a harness sends back: the reply with its reasoning, so the next prompt extends this one (one merge chain)
  return { message: { ...message, content: message.content === null || message.content.trim() === '' ? null : message.content }, usage: body.usage };
}

/** The TypeScript sources of READ_FOLDERS, sorted, as paths from the root. */
function sourceFiles(): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) found.push(relative(ROOT, path));
    }
  };
  for (const folder of READ_FOLDERS) walk(join(ROOT, folder));
  return found;
}
