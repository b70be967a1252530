import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ChatCallRenderer } from '../../gateway/backends/chat-call-renderer.js';
import type { BackendClient } from '../../gateway/backends/vllm.js';
import { createTokenFaithful, type PrepareInput } from '../../gateway/token-faithful/create-token-faithful.js';
import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';

/** The bundled Qwen3 folder renders; the backend is never asked. */
const UNUSED_BACKEND: BackendClient = {
  url: 'http://127.0.0.1:9',
  postJson: () => Promise.reject(new Error('not asked')),
  get: () => Promise.reject(new Error('not asked')),
  close: () => Promise.resolve(),
};

const RENDERER: ChatCallRenderer = {
  renderBody: (completion) => completion,
  streamHeaders: () => ({}),
  renderChunk: () => '',
  renderStreamEnd: () => '',
  renderStreamError: () => '',
};

function tokenFaithful() {
  return createTokenFaithful({
    models: ['*'],
    modelDir: qwen3TokenizerDir(),
    reasoningParser: 'qwen3',
    toolCallParser: 'hermes',
    backend: UNUSED_BACKEND,
    logger: pino({ level: 'silent' }),
  });
}

function input(chatBody: Record<string, unknown>, sessionId = 's1'): PrepareInput {
  return {
    sessionId,
    callId: `call-${sessionId}`,
    requestedModel: 'Qwen/Qwen3-8B',
    chatBody,
    renderer: RENDERER,
    signal: new AbortController().signal,
  };
}

const CHAT = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'Say hi.' }], max_tokens: 32, temperature: 0.7, stream: true };

describe('token-faithful routes per backend flavour', () => {
  it('prepares /v1/completions for vLLM and /generate for SGLang with the same prompt ids, route staying the vLLM one', async () => {
    const prepared = await tokenFaithful().prepare(input(CHAT));
    expect(prepared?.routes).not.toBeNull();
    const { vllm, sglang } = prepared!.routes!;
    expect(prepared!.route).toBe(vllm);
    expect(vllm.backendPath).toBe('/v1/completions');
    expect(sglang.backendPath).toBe('/generate');
    expect(sglang.backendBody.input_ids).toEqual(vllm.backendBody.prompt);
    expect(sglang.backendBody).toMatchObject({ stream: true, return_logprob: true, sampling_params: { max_new_tokens: 32, temperature: 0.7 } });
  });

  it("remembers an SGLang call's turn so the next call extends it by the EOS id in output_ids", async () => {
    const mode = tokenFaithful();
    const first = await mode.prepare(input(CHAT));
    const route = first!.routes!.sglang;
    const promptIds = route.backendBody.input_ids as number[];
    const assembler = route.createAssembler({ incrementalStreaming: false });
    // "Hi!" then <|im_end|>, as SGLang's cumulative /generate stream sends it
    const ids = [13048, 0, 151645];
    const metaInfo = (count: number, finish: unknown) => ({
      id: 'r1',
      finish_reason: finish,
      prompt_tokens: promptIds.length,
      completion_tokens: count,
      cached_tokens: 0,
    });
    for (const [count, text] of [
      [1, 'Hi'],
      [2, 'Hi!'],
    ] as const)
      assembler.add({ text, output_ids: ids.slice(0, count), meta_info: metaInfo(count, null) });
    assembler.add({ text: 'Hi!', output_ids: ids, meta_info: metaInfo(3, { type: 'stop', matched: 151645 }) });
    route.renderer.renderStreamEnd(assembler);

    const messages = [...CHAT.messages, { role: 'assistant', content: 'Hi!' }, { role: 'user', content: 'Again.' }];
    const second = await mode.prepare({ ...input({ ...CHAT, messages }), callId: 'call-2' });
    expect(second?.metadata.tokenFaithful).toMatchObject({ mode: 'extend', extends: 'call-s1' });
    const next = second!.routes!.sglang.backendBody.input_ids as number[];
    expect(next.slice(0, promptIds.length + ids.length)).toEqual([...promptIds, ...ids]);
  });

  it('sends a call asking several choices to the chat endpoint (the history keeps one completion per call)', async () => {
    const prepared = await tokenFaithful().prepare(input({ ...CHAT, n: 2 }));
    expect(prepared).toMatchObject({ route: null, routes: null, metadata: { tokenFaithful: { mode: 'plain', reason: 'several-choices' } } });
  });
});
