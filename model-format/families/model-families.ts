import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { isRecord } from '../../core/json/is-record.js';
import type { FamilyReasoningParser, ModelFamily, ModelFolderFacts } from './model-family.js';
import { deepSeekV3Family } from './deepseek-v3/index.js';
import { glm45Family } from './glm45/index.js';
import { gptOssFamily } from './gpt-oss/index.js';
import { kimiK2Family } from './kimi-k2/index.js';
import { llama3Family } from './llama3/index.js';
import { mistralFamily } from './mistral/index.js';
import { qwen3Family } from './qwen3/index.js';
import { qwen35Family } from './qwen3.5/index.js';

/** Every family token-faithful mode can read (docs/model-families.md); detection tries them in this order. */
export const MODEL_FAMILIES: readonly ModelFamily[] = [
  qwen3Family,
  qwen35Family,
  llama3Family,
  deepSeekV3Family,
  gptOssFamily,
  mistralFamily,
  glm45Family,
  kimiK2Family,
];

/** The family used when nothing names or detects one (no model folder): Qwen3, as before families existed. */
export const DEFAULT_MODEL_FAMILY: ModelFamily = qwen3Family;

/**
 * @example familyByName('qwen3')?.name // 'qwen3'
 */
export function familyByName(name: string): ModelFamily | undefined {
  return MODEL_FAMILIES.find((family) => family.name === name);
}

/**
 * The first family that recognises the folder (its `model_type`, else its template's markers), or null.
 *
 * @example detectFamily({ modelType: 'qwen3', template: '' })?.name // 'qwen3'
 */
export function detectFamily(facts: ModelFolderFacts): ModelFamily | null {
  return MODEL_FAMILIES.find((family) => family.detect(facts)) ?? null;
}

/** Every family's reasoning parser's name, each once (`--reasoning-parser` takes these and `none`). */
export function reasoningParserNames(): string[] {
  return [...new Set(MODEL_FAMILIES.flatMap((family) => familyReasoningParsers(family).map((parser) => parser.name)))];
}

/**
 * The family's reasoning parsers, its default first (`reasoning`, then `otherReasoning`).
 *
 * @example familyReasoningParsers(familyByName('deepseek-v3')!).map((parser) => parser.name) // ['deepseek-v3', 'deepseek-r1']
 */
export function familyReasoningParsers(family: ModelFamily): FamilyReasoningParser[] {
  return [...(family.reasoning === null ? [] : [family.reasoning]), ...(family.otherReasoning ?? [])];
}

/** Every family's tool-call parser names, each once (`--tool-call-parser` takes these and `none`). */
export function toolCallParserNames(): string[] {
  return [...new Set(MODEL_FAMILIES.flatMap((family) => Object.keys(family.toolCalls)))];
}

/** The names `--model-family` takes. */
export function modelFamilyNames(): string[] {
  return MODEL_FAMILIES.map((family) => family.name);
}

/**
 * What a model folder says about its family: `config.json`'s `model_type`, the chat template (`chat_template.jinja`,
 * else `tokenizer_config.json`'s `chat_template`, every named template of a list joined) and the tokenizer's added tokens
 * (Mistral's `[ARGS]` marks a v11+ tokenizer). A file that is missing or does not parse contributes nothing: the folder
 * check at start (TT_MODEL_DIR_INVALID) reports those.
 *
 * @example readModelFolderFacts('/models/Qwen3-8B') // { modelType: 'qwen3', template: '{%- if tools %}…' }
 */
export function readModelFolderFacts(modelDir: string): ModelFolderFacts {
  const config = readJson(path.join(modelDir, 'config.json'));
  const modelType = isRecord(config) && typeof config.model_type === 'string' ? config.model_type : null;
  const tokenizerConfig = readJson(path.join(modelDir, 'tokenizer_config.json'));
  let template = readText(path.join(modelDir, 'chat_template.jinja'));
  if (template === null) {
    const value = isRecord(tokenizerConfig) ? tokenizerConfig.chat_template : undefined;
    if (typeof value === 'string') template = value;
    else if (Array.isArray(value))
      template = value.map((entry) => (isRecord(entry) && typeof entry.template === 'string' ? entry.template : '')).join('\n');
  }
  const addedTokens = readAddedTokens(readJson(path.join(modelDir, 'tokenizer.json')), tokenizerConfig);
  return { modelType, template: template ?? '', ...(addedTokens === null ? {} : { addedTokens }) };
}

/** The contents of `tokenizer.json`'s `added_tokens` and `tokenizer_config.json`'s `added_tokens_decoder`; null without either. */
function readAddedTokens(tokenizer: unknown, tokenizerConfig: unknown): string[] | null {
  const added = isRecord(tokenizer) && Array.isArray(tokenizer.added_tokens) ? tokenizer.added_tokens : null;
  const decoder =
    isRecord(tokenizerConfig) && isRecord(tokenizerConfig.added_tokens_decoder) ? Object.values(tokenizerConfig.added_tokens_decoder) : null;
  if (added === null && decoder === null) return null;
  const contents = [...(added ?? []), ...(decoder ?? [])].map((token) => (isRecord(token) ? token.content : undefined));
  return [...new Set(contents.filter((content): content is string => typeof content === 'string'))];
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function readJson(file: string): unknown {
  const text = readText(file);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The family and parsers token-faithful mode reads output with. */
export interface ResolvedModelFamily {
  family: ModelFamily;
  /** the family's reasoning parser's name, or `none` */
  reasoningParser: string;
  /** one of the family's tool-call parsers, or `none` */
  toolCallParser: string;
}

/**
 * Picks the family (`--model-family`: a name, or `auto`: detected from the model folder, Qwen3 without one) and its
 * parsers (`--reasoning-parser` / `--tool-call-parser` override the family's defaults, within the family). An unknown
 * family, a folder whose family cannot be detected, or a parser the family does not have is a TT_USAGE error naming
 * what is known: never a silent fallback. With a model folder the family is the one the folder shapes (`forFolder`), so
 * its defaults are that folder's (DeepSeek V3.2 with DSML: `deepseek-v32`).
 *
 * @example resolveModelFamily({ modelFamily: 'qwen3', toolCallParser: 'qwen3-coder' }).toolCallParser // 'qwen3-coder'
 */
export function resolveModelFamily(options: {
  modelFamily?: string | undefined;
  modelDir?: string | undefined;
  reasoningParser?: string | undefined;
  toolCallParser?: string | undefined;
}): ResolvedModelFamily {
  const facts = options.modelDir === undefined ? null : readModelFolderFacts(options.modelDir);
  const picked = pickFamily(options.modelFamily ?? 'auto', options.modelDir, facts);
  // the folder shapes the family where its models differ (DeepSeek V3.2's DSML, Qwen3.5's thinking default)
  const family = facts === null || picked.forFolder === undefined ? picked : picked.forFolder(facts);
  const reasoningNames = [...familyReasoningParsers(family).map((parser) => parser.name), 'none'];
  const toolNames = [...Object.keys(family.toolCalls), 'none'];
  const reasoningParser = options.reasoningParser ?? reasoningNames[0]!;
  const toolCallParser = options.toolCallParser ?? toolNames[0]!;
  if (!reasoningNames.includes(reasoningParser)) {
    throw usage(`the ${family.name} model family has no reasoning parser ${reasoningParser} (it has: ${reasoningNames.join(', ')})`);
  }
  if (!toolNames.includes(toolCallParser)) {
    throw usage(`the ${family.name} model family has no tool-call parser ${toolCallParser} (it has: ${toolNames.join(', ')})`);
  }
  return { family, reasoningParser, toolCallParser };
}

function pickFamily(name: string, modelDir: string | undefined, facts: ModelFolderFacts | null): ModelFamily {
  const known = modelFamilyNames().join(', ');
  if (name !== 'auto') {
    const named = familyByName(name);
    if (named === undefined) throw usage(`unknown model family ${name} (known: ${known}, or auto)`);
    return named;
  }
  if (facts === null) return DEFAULT_MODEL_FAMILY;
  // a folder with neither config.json nor a template is refused by the model folder check at start (TT_MODEL_DIR_INVALID)
  if (facts.modelType === null && facts.template === '') return DEFAULT_MODEL_FAMILY;
  const detected = detectFamily(facts);
  if (detected !== null) return detected;
  const type = facts.modelType === null ? 'no model_type in config.json' : `model_type ${facts.modelType}`;
  throw usage(`cannot tell the model family of ${modelDir} (${type}, no known template markers); name one with --model-family (known: ${known})`);
}

function usage(message: string): TokentapError {
  return new TokentapError('TT_USAGE', { message });
}
