import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Tiktoken } from '@dqbd/tiktoken/lite';
import { o200kHarmonySpecialTokens } from '../../model-format/families/gpt-oss/o200k-harmony.js';
import { renderHarmonyChat } from '../../model-format/families/gpt-oss/render-harmony-chat.js';
import type { Retokenizer } from './retokenizer.js';
import { writeHarmonyReply } from '../../model-format/families/gpt-oss/write-harmony-reply.js';

export type TiktokenEncodingName = 'cl100k_base' | 'o200k_base' | 'o200k_harmony';

/** The rank file's form in `@dqbd/tiktoken/encoders/*.json`. */
interface EncoderFile {
  bpe_ranks: string;
  special_tokens: Record<string, number>;
  pat_str: string;
}

const loaded = new Map<TiktokenEncodingName, Promise<Retokenizer>>();

/**
 * A retokenizer over an OpenAI tiktoken encoding (`@dqbd/tiktoken`, WASM): `cl100k_base` and `o200k_base` as
 * shipped (plain text only: no chat format), and `o200k_harmony` built from `o200k_base`'s ranks and pattern plus
 * the Harmony special tokens (see o200k-harmony.ts), which renders chats in the Harmony format. `hash` is the
 * sha256 of the pattern, the ranks and the special tokens. Built once per encoding for the process.
 *
 * @example
 * const harmony = await createTiktokenRetokenizer('o200k_harmony');
 * harmony.encode('<|start|>user<|message|>hi<|end|>'); // Int32Array [200006, 1428, 200008, 3686, 200007]
 */
export function createTiktokenRetokenizer(encoding: TiktokenEncodingName): Promise<Retokenizer> {
  let loading = loaded.get(encoding);
  if (loading === undefined) {
    loading = buildRetokenizer(encoding);
    loaded.set(encoding, loading);
    loading.catch(() => loaded.delete(encoding));
  }
  return loading;
}

async function buildRetokenizer(encoding: TiktokenEncodingName): Promise<Retokenizer> {
  const harmony = encoding === 'o200k_harmony';
  const file = await readEncoderFile(harmony ? 'o200k_base' : encoding);
  const specialTokens = harmony ? o200kHarmonySpecialTokens() : file.special_tokens;
  const tiktoken = new Tiktoken(file.bpe_ranks, specialTokens, file.pat_str);
  const decoder = new TextDecoder('utf-8');
  const encode = (text: string): Int32Array => Int32Array.from(tiktoken.encode(text, 'all'));
  const retokenizer: Retokenizer = {
    kind: 'tiktoken',
    name: `tiktoken:${encoding}`,
    hash: `sha256:${encodingHash(file, specialTokens)}`,
    // gpt-oss's tokenizer_config names <|return|> its eos_token; the plain encodings end text with <|endoftext|>
    eosToken: harmony ? '<|return|>' : '<|endoftext|>',
    encode,
    // tiktoken adds no BOS/EOS frame of its own
    encodePrompt: encode,
    decode: (ids) => decoder.decode(tiktoken.decode(Uint32Array.from(ids))),
  };
  if (harmony) {
    retokenizer.renderChat = renderHarmonyChat;
    retokenizer.writeReply = writeHarmonyReply;
  }
  return retokenizer;
}

async function readEncoderFile(name: 'cl100k_base' | 'o200k_base'): Promise<EncoderFile> {
  const require = createRequire(import.meta.url);
  return JSON.parse(await readFile(require.resolve(`@dqbd/tiktoken/encoders/${name}.json`), 'utf8')) as EncoderFile;
}

/** Pattern, ranks (in the package's compact form) and specials sorted by id: everything that decides the ids. */
function encodingHash(file: EncoderFile, specialTokens: Record<string, number>): string {
  const specials = Object.entries(specialTokens).sort(([, a], [, b]) => a - b);
  return createHash('sha256').update(file.pat_str).update('\n').update(file.bpe_ranks).update('\n').update(JSON.stringify(specials)).digest('hex');
}
