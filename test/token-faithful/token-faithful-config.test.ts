import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../cli/load-config.js';
import { UsageError } from '../../cli/usage-error.js';
import { createGateway } from '../../gateway/create-gateway.js';
import type { GatewayWithSim } from '../helpers/gateway-with-sim.js';
import { answerReply, MODEL, orderedScript, startTokenFaithful } from './token-faithful-fixtures.js';

let setup: GatewayWithSim | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

describe('token-faithful configuration', () => {
  it('takes model names comma-separated from flag and env, a list from the file, * for all; off by default', () => {
    expect(loadConfig({ 'token-faithful': 'Qwen/Qwen3-8B, my-model' }, {}).tokenFaithful).toEqual(['Qwen/Qwen3-8B', 'my-model']);
    expect(loadConfig({}, { TOKENTAP_TOKEN_FAITHFUL: '*', TOKENTAP_MODEL_DIR: '/models/qwen3' })).toMatchObject({
      tokenFaithful: ['*'],
      modelDir: '/models/qwen3',
    });
    const defaults = loadConfig({}, {});
    expect(defaults).toMatchObject({ tokenFaithful: [], modelFamily: 'auto' });
    // unset parsers are the family's
    expect(defaults.reasoningParser).toBeUndefined();
    expect(defaults.toolCallParser).toBeUndefined();
    expect(loadConfig({ 'model-family': 'qwen3', 'tool-call-parser': 'qwen3-coder' }, {})).toMatchObject({
      modelFamily: 'qwen3',
      toolCallParser: 'qwen3-coder',
    });
    expect(() => loadConfig({ 'tool-call-parser': 'xml' }, {})).toThrow(UsageError);
    expect(() => loadConfig({ 'model-family': 'gemma' }, {})).toThrow(/auto.*qwen3/);
  });

  it('refuses at start a model folder whose family cannot be told, naming the known families', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'tokentap-mistral-'));
    try {
      writeFileSync(path.join(folder, 'config.json'), '{"model_type": "mistral"}');
      writeFileSync(path.join(folder, 'chat_template.jinja'), '[INST]{{ messages[0].content }}[/INST]');
      expect(() => createGateway({ db: ':memory:', logLevel: 'silent', tokenFaithful: ['*'], modelDir: folder })).toThrow(
        /cannot tell the model family of .*model_type mistral.*known: qwen3/,
      );
      // named, the family is taken as given
      createGateway({ db: ':memory:', logLevel: 'silent', tokenFaithful: ['*'], modelDir: folder, modelFamily: 'qwen3' }).app.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('shows its counters on /healthz only when it is on', async () => {
    const off = createGateway({ db: ':memory:', logLevel: 'silent' });
    const on = createGateway({ db: ':memory:', logLevel: 'silent', tokenFaithful: ['*'] });
    expect(((await off.app.inject({ method: 'GET', url: '/healthz' })).json() as Record<string, unknown>).tokenFaithful).toBeUndefined();
    expect(((await on.app.inject({ method: 'GET', url: '/healthz' })).json() as Record<string, unknown>).tokenFaithful).toEqual({
      family: { name: 'qwen3', reasoningParser: 'qwen3', toolCallParser: 'hermes' },
      extend: 0,
      fresh: 0,
      plain: 0,
      reasons: {},
      historyTokens: 0,
    });
    await Promise.all([off.close(), on.close()]);
  });

  it('renders through the backend /tokenize without a model folder, giving the same ids as the folder', async () => {
    const replies = [answerReply('one'), answerReply('two')];
    const prompts: number[][][] = [];
    for (const render of ['local', 'backend'] as const) {
      setup = await startTokenFaithful(orderedScript(replies), { render });
      const client = new OpenAI({ baseURL: setup.openaiBase('render'), apiKey: 'x', maxRetries: 0 });
      const first = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'One?' }] });
      await client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'One?' }, first.choices[0]!.message, { role: 'user', content: 'Two?' }],
      });
      const calls = setup.gateway.store.listCalls('render');
      expect(calls[1]!.metadata.tokenFaithful).toMatchObject({ mode: 'extend' });
      prompts.push(calls.map((call) => Array.from(call.promptTokenIds!)));
      await setup.close();
      setup = undefined;
    }
    expect(prompts[1]).toEqual(prompts[0]);
  });

  it('leaves a request with images to the chat endpoint', async () => {
    setup = await startTokenFaithful(orderedScript([answerReply('a cat')]));
    const client = new OpenAI({ baseURL: setup.openaiBase('image'), apiKey: 'x', maxRetries: 0 });
    await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    });
    expect(setup.gateway.store.listCalls('image')[0]!.metadata.tokenFaithful).toEqual({ mode: 'plain', reason: 'multimodal-content' });
    expect(setup.sim.log[0]!.endpoint).toBe('chat');
  });
});
