import { createGateway } from '../../gateway/create-gateway.js';
import type { SimScript } from '../../sim/index.js';
import { recordedChat, type AssistantMessage } from '../reconstruct/chat-through-gateway.js';
import { closedPort } from './closed-port.js';
import { startGatewayWithSim } from './gateway-with-sim.js';
import { makeTempDir } from './temp-dir.js';

/** What `recordFailedCalls` wrote: the database (closed) and a folder for output files. */
export interface FailedCallsFixture {
  db: string;
  dir: string;
  /** the system prompt of session `agent` (long: `show --call` folds it) */
  systemPrompt: string;
  remove(): void;
}

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
 * Records, through the gateway in front of the simulator (real Qwen3 tokenizer and template), the calls a new user
 * meets when something goes wrong:
 * - session `agent`: a tool call (non-streamed, long system prompt), the answer after the tool result (streamed),
 *   then a call naming a model the backend does not serve (vLLM's 404 `The model \`gpt-4o\` does not exist.`);
 * - session `claude`: one Anthropic Messages call whose history holds a tool_use and its tool_result;
 * - session `codex`: one Responses API call whose input holds a function_call and its output;
 * - session `down`: one call through a gateway whose backend is not listening (TT_BACKEND_UNREACHABLE).
 */
export async function recordFailedCalls(): Promise<FailedCallsFixture> {
  const temp = makeTempDir('tokentap-failed-');
  const db = temp.file('tokentap.db');
  const systemPrompt = `You are a careful assistant. ${'Check every sum twice before you answer. '.repeat(60)}The end.`;
  const setup = await startGatewayWithSim({ script: SCRIPT, acceptAnyModel: false }, { db, backendRetries: 0 });
  try {
    const base = setup.openaiBase('agent');
    const messages: Array<Record<string, unknown>> = [
      { role: 'system', content: systemPrompt },
      { role: 'user', content: 'What is 17 + 25? Use the calculator.' },
    ];
    const first = await recordedChat(base, { messages, tools: [CALCULATOR] }, false);
    messages.push(toHistory(first.message));
    for (const call of first.message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: '42' });
    await recordedChat(base, { messages, tools: [CALCULATOR] }, true);
    const missing = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
    });
    if (missing.status !== 404) throw new Error(`expected the backend's 404, got ${missing.status}`);
    const claude = await fetch(`${setup.url}/s/claude/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'Qwen/Qwen3-8B',
        max_tokens: 200,
        system: [{ type: 'text', text: 'You add numbers.' }],
        tools: [{ name: 'calculator', description: 'Adds two integers.', input_schema: CALCULATOR.function.parameters }],
        messages: [
          { role: 'user', content: 'What is 17 + 25? Use the calculator.' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'calculator', input: { a: 17, b: 25 } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: '42' }] }] },
        ],
      }),
    });
    if (claude.status !== 200) throw new Error(`the Anthropic call failed: ${claude.status} ${await claude.text()}`);
    const codex = await fetch(`${setup.url}/s/codex/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'Qwen/Qwen3-8B',
        instructions: 'You add numbers.',
        tools: [{ type: 'function', name: 'calculator', description: 'Adds two integers.', parameters: CALCULATOR.function.parameters }],
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is 17 + 25? Use the calculator.' }] },
          { type: 'function_call', call_id: 'call_01', name: 'calculator', arguments: '{"a":17,"b":25}' },
          { type: 'function_call_output', call_id: 'call_01', output: '42' },
        ],
      }),
    });
    if (codex.status !== 200) throw new Error(`the Responses call failed: ${codex.status} ${await codex.text()}`);
  } finally {
    await setup.close();
  }
  const gateway = createGateway({ backendUrl: `http://127.0.0.1:${await closedPort()}`, db, port: 0, logLevel: 'silent', backendRetries: 0 });
  try {
    const url = await gateway.listen();
    const down = await fetch(`${url}/s/down/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'hello' }] }),
    });
    if (down.status !== 502) throw new Error(`expected 502 from an unreachable backend, got ${down.status}`);
  } finally {
    await gateway.close();
  }
  return { db, dir: temp.path, systemPrompt, remove: temp.remove };
}

/** The reply as a harness sends it back: reasoning kept, so the next call extends it token for token. */
function toHistory(message: AssistantMessage): Record<string, unknown> {
  return {
    role: 'assistant',
    content: message.content === null || message.content.trim() === '' ? null : message.content,
    ...(message.reasoning === undefined ? {} : { reasoning: message.reasoning }),
    ...(message.tool_calls === undefined || message.tool_calls.length === 0 ? {} : { tool_calls: message.tool_calls }),
  };
}
