import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTokentapError } from '../../../core/errors/tokentap-error.js';
import {
  detectFamily,
  familyByName,
  MODEL_FAMILIES,
  readModelFolderFacts,
  resolveModelFamily,
} from '../../../model-format/families/model-families.js';
import { qwen3TokenizerDir } from '../../../model-format/tokenizer/load-hf-tokenizer.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A model folder holding just these files. */
function modelFolder(files: Record<string, string>): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'tokentap-family-'));
  folders.push(folder);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(folder, name), text);
  return folder;
}

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isTokentapError(error, 'TT_USAGE')).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a TT_USAGE error');
}

describe('the model family registry', () => {
  it('names each family once, and finds it by name', () => {
    const names = MODEL_FAMILIES.map((family) => family.name);
    expect(new Set(names).size).toBe(names.length);
    expect(familyByName('qwen3')?.toolCalls).toHaveProperty('hermes');
    expect(familyByName('qwen3')?.toolCalls).toHaveProperty('qwen3-coder');
    expect(familyByName('qwen3')?.reasoning?.name).toBe('qwen3');
    expect(familyByName('gemma')).toBeUndefined();
  });

  it("detects Qwen3 from config.json's model_type and, without one, from the bundled folder's template markers", () => {
    expect(detectFamily({ modelType: 'qwen3_moe', template: '' })?.name).toBe('qwen3');
    const facts = readModelFolderFacts(qwen3TokenizerDir());
    expect(facts.modelType).toBeNull();
    expect(detectFamily(facts)?.name).toBe('qwen3');
    expect(detectFamily({ modelType: 'mistral', template: '[INST]' })).toBeNull();
  });

  it('reads chat_template.jinja before tokenizer_config.json, and model_type from config.json', () => {
    const folder = modelFolder({
      'config.json': '{"model_type": "qwen3"}',
      'chat_template.jinja': 'from the jinja file',
      'tokenizer_config.json': '{"chat_template": "from the config"}',
    });
    expect(readModelFolderFacts(folder)).toEqual({ modelType: 'qwen3', template: 'from the jinja file' });
  });

  it("resolves the family's default parsers, and the overrides it has", () => {
    expect(resolveModelFamily({})).toMatchObject({ reasoningParser: 'qwen3', toolCallParser: 'hermes' });
    expect(resolveModelFamily({}).family.name).toBe('qwen3');
    expect(resolveModelFamily({ modelFamily: 'auto', modelDir: qwen3TokenizerDir(), toolCallParser: 'qwen3-coder' })).toMatchObject({
      reasoningParser: 'qwen3',
      toolCallParser: 'qwen3-coder',
    });
    expect(resolveModelFamily({ modelFamily: 'qwen3', reasoningParser: 'none', toolCallParser: 'none' })).toMatchObject({
      reasoningParser: 'none',
      toolCallParser: 'none',
    });
  });

  it('refuses an unknown family, a folder whose family cannot be told, and a parser the family lacks, naming what is known', () => {
    expect(usageMessage(() => resolveModelFamily({ modelFamily: 'gemma' }))).toMatch(/unknown model family gemma \(known: qwen3/);
    const mistral = modelFolder({ 'config.json': '{"model_type": "mistral"}', 'chat_template.jinja': '[INST]{{ messages }}[/INST]' });
    const message = usageMessage(() => resolveModelFamily({ modelDir: mistral }));
    expect(message).toContain(mistral);
    expect(message).toMatch(/model_type mistral.*--model-family \(known: qwen3/);
    expect(usageMessage(() => resolveModelFamily({ modelFamily: 'qwen3', toolCallParser: 'llama3-json' }))).toBe(
      'the qwen3 model family has no tool-call parser llama3-json (it has: hermes, qwen3-coder, none)',
    );
  });

  it('names a family for a folder without a model_type or template: the start-up folder check refuses that one', () => {
    expect(resolveModelFamily({ modelDir: modelFolder({}) }).family.name).toBe('qwen3');
  });
});
