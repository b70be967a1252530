import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Tiktoken } from '@dqbd/tiktoken/lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRetokenizer } from '../../../reconstruct/retokenize/create-retokenizer.js';
import { HARMONY_SPECIAL_TOKENS } from '../../../model-format/families/gpt-oss/o200k-harmony.js';
import type { Retokenizer } from '../../../reconstruct/retokenize/retokenizer.js';

/** o200k_base's split pattern as openai/tiktoken `tiktoken_ext/openai_public.py` and openai/harmony write it. */
const O200K_PATTERN = [
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
  '\\p{N}{1,3}',
  ' ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*',
  '\\s*[\\r\\n]+',
  '\\s+(?!\\S)',
  '\\s+',
].join('|');

const ORDINARY_TEXTS = [
  'hello world',
  'The quick brown fox jumps over the lazy dog. 1234567 + 89 = 1234656',
  "  def f(x):\n\treturn x ** 2  # it's squared\r\n\n\n",
  'Ünïcödé: 日本語のテキスト, русский текст, العربية, emoji 🚀🧪 and a ZWJ 👩‍💻',
  '{"name": "ls", "arguments": {"path": "./src/*.ts"}}',
];

let harmony: Retokenizer;
let o200k: Retokenizer;
let cl100k: Retokenizer;
let reference: Tiktoken;

beforeAll(async () => {
  [harmony, o200k, cl100k] = await Promise.all([
    createRetokenizer({ kind: 'tiktoken', encoding: 'o200k_harmony' }),
    createRetokenizer({ kind: 'tiktoken', encoding: 'o200k_base' }),
    createRetokenizer({ kind: 'tiktoken', encoding: 'cl100k_base' }),
  ]);
  const require = createRequire(import.meta.url);
  const file = JSON.parse(await readFile(require.resolve('@dqbd/tiktoken/encoders/o200k_base.json'), 'utf8')) as {
    bpe_ranks: string;
    special_tokens: Record<string, number>;
    pat_str: string;
  };
  expect(file.pat_str).toBe(O200K_PATTERN);
  reference = new Tiktoken(file.bpe_ranks, file.special_tokens, file.pat_str);
});

afterAll(() => reference.free());

describe('o200k_harmony', () => {
  it('encodes each named Harmony token to its id and decodes it back', () => {
    const expected: Record<string, number> = {
      '<|startoftext|>': 199998,
      '<|endoftext|>': 199999,
      '<|reserved_200000|>': 200000,
      '<|reserved_200001|>': 200001,
      '<|return|>': 200002,
      '<|constrain|>': 200003,
      '<|reserved_200004|>': 200004,
      '<|channel|>': 200005,
      '<|start|>': 200006,
      '<|end|>': 200007,
      '<|message|>': 200008,
      '<|reserved_200009|>': 200009,
      '<|reserved_200010|>': 200010,
      '<|reserved_200011|>': 200011,
      '<|call|>': 200012,
    };
    expect(HARMONY_SPECIAL_TOKENS).toEqual(expected);
    for (const [token, id] of Object.entries(expected)) {
      expect(Array.from(harmony.encode(token))).toEqual([id]);
      expect(harmony.decode([id])).toBe(token);
    }
  });

  it('reserves every id from 200013 to 201087, keeps <|endofprompt|> at 200018, and ends the vocabulary there', () => {
    for (const id of [200013, 200014, 200017, 200019, 200500, 201087]) {
      expect(Array.from(harmony.encode(`<|reserved_${id}|>`))).toEqual([id]);
      expect(harmony.decode([id])).toBe(`<|reserved_${id}|>`);
    }
    // gpt-oss's get_tokenizer(): o200k_base's <|endofprompt|> keeps 200018, so no reserved name is made for it
    expect(Array.from(harmony.encode('<|endofprompt|>'))).toEqual([200018]);
    expect(harmony.decode([200018])).toBe('<|endofprompt|>');
    expect(harmony.encode('<|reserved_200018|>').length).toBeGreaterThan(1);
    expect(harmony.encode('<|reserved_201088|>').length).toBeGreaterThan(1);
  });

  it('encodes ordinary text exactly as o200k_base does', () => {
    for (const text of ORDINARY_TEXTS) {
      const base = Array.from(reference.encode_ordinary(text));
      expect(Array.from(harmony.encode(text))).toEqual(base);
      expect(Array.from(o200k.encode(text))).toEqual(base);
      expect(harmony.decode(harmony.encode(text))).toBe(text);
    }
    expect(Array.from(harmony.encode('hello world'))).toEqual([24912, 2375]);
  });

  it("reproduces the token ids of openai/harmony's reasoning example (docs/format.md)", () => {
    const text =
      '<|channel|>analysis<|message|>User asks: "What is 2 + 2?" Simple arithmetic. Provide answer.<|end|>' +
      '<|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>';
    expect(Array.from(harmony.encode(text))).toEqual([
      200005, 35644, 200008, 1844, 31064, 25, 392, 4827, 382, 220, 17, 659, 220, 17, 16842, 12295, 81645, 13, 51441, 6052, 13, 200007, 200006, 173781,
      200005, 17196, 200008, 17, 659, 220, 17, 314, 220, 19, 13, 200002,
    ]);
  });

  it('names itself and hashes what decides the ids: the same ranks with other specials hash differently', () => {
    expect(harmony.name).toBe('tiktoken:o200k_harmony');
    expect(harmony.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(new Set([harmony.hash, o200k.hash, cl100k.hash]).size).toBe(3);
    expect(harmony.eosToken).toBe('<|return|>');
    expect(harmony.renderChat).toBeTypeOf('function');
  });
});

describe('plain tiktoken encodings', () => {
  it('encode text as tiktoken does and have no chat format', () => {
    expect(Array.from(cl100k.encode('hello world'))).toEqual([15339, 1917]);
    expect(Array.from(cl100k.encode('<|endoftext|>'))).toEqual([100257]);
    expect(Array.from(o200k.encode('<|endoftext|>'))).toEqual([199999]);
    // o200k_base has no Harmony tokens: <|start|> is ordinary text there
    expect(o200k.encode('<|start|>').length).toBeGreaterThan(1);
    for (const retokenizer of [cl100k, o200k]) {
      expect(retokenizer.renderChat).toBeUndefined();
      expect(retokenizer.writeReply).toBeUndefined();
    }
  });
});
