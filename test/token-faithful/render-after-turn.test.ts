import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVllmBackend, type BackendClient } from '../../gateway/backends/vllm.js';
import { createBackendPromptRenderer } from '../../gateway/token-faithful/backend-prompt-renderer.js';
import { createLocalPromptRenderer } from '../../gateway/token-faithful/local-prompt-renderer.js';
import { promptRequestFrom, type PromptRenderer } from '../../gateway/token-faithful/prompt-renderer.js';
import { loadHfTokenizer, qwen3TokenizerDir, type HfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { createSimBackend, type SimBackend } from '../../sim/index.js';
import { renderReplyText } from '../../sim/render-reply-text.js';
import { MODEL, STEP_TOOL } from './token-faithful-fixtures.js';

const IM_END = 151645;
const signal = new AbortController().signal;

/** An assistant turn as Qwen3 writes it, and the message a harness that keeps reasoning sends back for it. */
function assistantTurn(step: number): { text: string; message: Record<string, unknown> } {
  const reply = { reasoning: `Step ${step}.`, toolCalls: [{ name: 'read_step', arguments: { step } }] };
  const message = {
    role: 'assistant',
    content: '',
    reasoning_content: `Step ${step}.`,
    tool_calls: [{ id: `c${step}`, type: 'function', function: { name: 'read_step', arguments: JSON.stringify({ step }) } }],
  };
  return { text: renderReplyText(reply, { thinking: true }), message };
}

function tool(step: number, content = `note ${step}`): Record<string, unknown> {
  return { role: 'tool', tool_call_id: `c${step}`, content };
}

/** A tool loop that no template re-render changes: reasoning goes back, no new user turn. */
function toolLoop(): { messages: Array<Record<string, unknown>>; turns: Array<{ at: number; text: string }> } {
  const messages: Array<Record<string, unknown>> = [
    { role: 'system', content: 'Read notes.' },
    { role: 'user', content: 'Read three notes.' },
  ];
  const turns: Array<{ at: number; text: string }> = [];
  for (let step = 1; step <= 3; step++) {
    const turn = assistantTurn(step);
    turns.push({ at: messages.length, text: turn.text });
    messages.push(turn.message, tool(step));
    if (step === 2) messages.push(tool(step, 'a second result for the same call'));
  }
  return { messages, turns };
}

let tokenizer: HfTokenizer;
let sim: SimBackend;
let backend: BackendClient;
let local: PromptRenderer;
let remote: PromptRenderer;

beforeAll(async () => {
  tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
  sim = await createSimBackend({ acceptAnyModel: true });
  backend = createVllmBackend({ backendUrl: await sim.listen(), headersTimeoutMs: 10_000, bodyTimeoutMs: 10_000, connections: 4 });
  local = createLocalPromptRenderer(qwen3TokenizerDir());
  remote = createBackendPromptRenderer(backend);
});

afterAll(async () => {
  await backend.close();
  await sim.close();
});

function request(messages: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): ReturnType<typeof promptRequestFrom> {
  return promptRequestFrom({ model: MODEL, messages, tools: [STEP_TOOL], ...extra });
}

describe('rendering just the new messages after an earlier assistant turn', () => {
  for (const [name, renderer] of [
    ['local (--model-dir)', () => local],
    ['backend /tokenize', () => remote],
  ] as const) {
    it(`equals a full render where the template does not drift (${name})`, async () => {
      const { messages, turns } = toolLoop();
      for (const turn of turns) {
        const before = await renderer().renderFull(request(messages.slice(0, turn.at)), signal);
        const completion = [...tokenizer.encode(turn.text), IM_END];
        const after = await renderer().renderAfterTurn(request(messages), turn.at + 1, IM_END, signal);
        expect(after).not.toBeNull();
        expect([...before, ...completion, ...after!]).toEqual(await renderer().renderFull(request(messages), signal));
      }
    });
  }

  it('gives the backend and the local folder the same ids, thinking off too', async () => {
    const { messages } = toolLoop();
    for (const extra of [{}, { chat_template_kwargs: { enable_thinking: false } }]) {
      expect(await remote.renderFull(request(messages, extra), signal)).toEqual(await local.renderFull(request(messages, extra), signal));
      expect(await remote.renderAfterTurn(request(messages, extra), 3, IM_END, signal)).toEqual(
        await local.renderAfterTurn(request(messages, extra), 3, IM_END, signal),
      );
    }
  });

  it('starts right after the end-of-turn token, with the new turns and the generation prompt', async () => {
    const messages = [...toolLoop().messages, { role: 'user', content: 'Now summarize.' }];
    const after = await local.renderAfterTurn(request(messages), 3, IM_END, signal);
    const text = tokenizer.decode(after!);
    expect(text.startsWith('\n<|im_start|>user\n<tool_response>\nnote 1\n</tool_response><|im_end|>\n<|im_start|>assistant\n')).toBe(true);
    expect(text.endsWith('<|im_start|>user\nNow summarize.<|im_end|>\n<|im_start|>assistant\n')).toBe(true);
    // a new user turn makes Qwen3 drop the earlier <think> blocks: the full render no longer starts with the earlier turn
    const full = tokenizer.decode(await local.renderFull(request(messages), signal));
    expect(full).not.toContain('Step 1.');
  });

  it('finds no cut when the end-of-turn token never closes a turn', async () => {
    const { messages } = toolLoop();
    expect(await local.renderAfterTurn(request(messages), 3, tokenizer.tokenToId('<|endoftext|>')!, signal)).toBeNull();
  });
});
