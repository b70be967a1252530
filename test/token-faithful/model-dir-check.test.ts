import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../gateway/create-gateway.js';
import { isTokentapError } from '../../core/errors/tokentap-error.js';
import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let temp: ReturnType<typeof makeTempDir>;
let gateway: Gateway | undefined;
beforeEach(() => {
  temp = makeTempDir('tokentap-model-dir-');
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  temp.remove();
});

const QWEN3_CONFIG = JSON.parse(readFileSync(path.join(qwen3TokenizerDir(), 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;

/**
 * A model folder as Hugging Face ships one (config.json naming the model type, the Qwen3 tokenizer), with `change`
 * applied: each entry written (an object as JSON, a string as is) or, when null, left out.
 */
function modelFolder(name: string, change: Record<string, unknown> = {}): string {
  const folder = temp.file(name);
  mkdirSync(folder);
  const files: Record<string, unknown> = {
    'config.json': { model_type: 'qwen3' },
    'tokenizer_config.json': QWEN3_CONFIG,
    'tokenizer.json': 'LINK',
    ...change,
  };
  for (const [file, content] of Object.entries(files)) {
    if (content === null) continue;
    if (content === 'LINK') symlinkSync(path.join(qwen3TokenizerDir(), file), path.join(folder, file));
    else writeFileSync(path.join(folder, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return folder;
}

function faithfulGateway(modelDir: string, tokenFaithful = '*'): Gateway {
  gateway = createGateway({ db: ':memory:', port: 0, logLevel: 'silent', tokenFaithful, modelDir, backendUrl: 'http://127.0.0.1:9' });
  return gateway;
}

/** listen() refuses the folder: TT_MODEL_DIR_INVALID naming it and what is wrong. */
async function expectRefused(modelDir: string, what: RegExp): Promise<void> {
  const error: unknown = await faithfulGateway(modelDir)
    .listen()
    .then(
      () => null,
      (thrown: unknown) => thrown,
    );
  expect(isTokentapError(error, 'TT_MODEL_DIR_INVALID'), String(error)).toBe(true);
  const message = (error as Error).message;
  expect(message.startsWith(`--model-dir ${modelDir}: `), message).toBe(true);
  expect(message).toMatch(what);
}

describe('token-faithful mode checks --model-dir at start (issue 16, item 5)', () => {
  it('refuses a folder that does not exist, or a file', async () => {
    await expectRefused(temp.file('nope'), /: no such folder$/);
    writeFileSync(temp.file('a-file'), 'x');
    await expectRefused(temp.file('a-file'), /not a folder/);
  });

  it('refuses a folder without tokenizer.json or tokenizer_config.json', async () => {
    await expectRefused(modelFolder('no-tokenizer', { 'tokenizer.json': null }), /: no tokenizer\.json \(/);
    await expectRefused(modelFolder('no-config', { 'tokenizer_config.json': null }), /: no tokenizer_config\.json \(/);
  });

  it('refuses files that do not parse, naming the file', async () => {
    await expectRefused(modelFolder('bad-json', { 'tokenizer.json': '{"model": ' }), /: tokenizer\.json is not JSON: /);
    await expectRefused(modelFolder('bad-config', { 'tokenizer_config.json': 'not json' }), /: tokenizer_config\.json is not JSON: /);
    await expectRefused(
      modelFolder('not-a-tokenizer', { 'tokenizer.json': { version: '1.0' } }),
      /: tokenizer\.json is no tokenizer this gateway can load \(/,
    );
  });

  it('refuses a folder with no chat template (neither chat_template.jinja nor tokenizer_config.json)', async () => {
    const { chat_template: _template, ...withoutTemplate } = QWEN3_CONFIG;
    await expectRefused(
      modelFolder('no-template', { 'tokenizer_config.json': withoutTemplate }),
      /: no chat template \(neither chat_template\.jinja nor/,
    );
  });

  it('refuses a template that cannot render a one-message conversation', async () => {
    const refusing = "{%- if '<|im_start|>' and '<tool_call>' %}{{ raise_exception('Conversations must start with a system message') }}{%- endif %}";
    await expectRefused(
      modelFolder('refusing-template', { 'chat_template.jinja': refusing }),
      /: the chat template cannot render a one-message conversation \(.*must start with a system message/,
    );
    await expectRefused(
      modelFolder('broken-template', { 'chat_template.jinja': '{% if %}' }),
      /: the chat template cannot render a one-message conversation \(/,
    );
  });

  it('refuses it through app.inject() too (no listen): the library embedding a gateway in tests', async () => {
    const error: unknown = await faithfulGateway(temp.file('nope'))
      .app.inject({ method: 'GET', url: '/healthz' })
      .then(
        () => null,
        (thrown: unknown) => thrown,
      );
    expect(isTokentapError(error, 'TT_MODEL_DIR_INVALID'), String(error)).toBe(true);
  });

  it('starts with a good folder whose template is in chat_template.jinja, and checks nothing when token-faithful mode is off', async () => {
    const { chat_template: template, ...withoutTemplate } = QWEN3_CONFIG;
    const folder = modelFolder('jinja', { 'tokenizer_config.json': withoutTemplate, 'chat_template.jinja': template });
    await expect(faithfulGateway(folder).listen()).resolves.toMatch(/^http:/);
    await gateway!.close();
    // the folder feeds only export provenance then (the CLI checks it has a tokenizer.json)
    gateway = createGateway({ db: ':memory:', port: 0, logLevel: 'silent', modelDir: temp.file('nope'), backendUrl: 'http://127.0.0.1:9' });
    await expect(gateway.listen()).resolves.toMatch(/^http:/);
  });
});
