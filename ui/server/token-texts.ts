import type { ViewerTokenizer } from './viewer-options.js';

/**
 * Each token's own text, decoded once per distinct id (a 100k-token sample has a few thousand distinct ids). With
 * the tokenizer's raw bytes per id, a byte that is not a whole UTF-8 character (a piece of one split across tokens)
 * shows as `\xe4`; without them the tokenizer decodes the id alone.
 *
 * @example new TokenTexts(tokenizer).of([9707, 11]) // ['Hello', ',']
 */
export class TokenTexts {
  readonly #tokenizer: ViewerTokenizer;
  readonly #texts = new Map<number, string>();

  constructor(tokenizer: ViewerTokenizer) {
    this.#tokenizer = tokenizer;
  }

  of(ids: ArrayLike<number>): string[] {
    const texts = new Array<string>(ids.length);
    for (let index = 0; index < ids.length; index++) texts[index] = this.text(ids[index] as number);
    return texts;
  }

  text(id: number): string {
    let text = this.#texts.get(id);
    if (text === undefined) {
      text = this.#tokenizer.tokenBytes === undefined ? this.#tokenizer.decode([id]) : renderUtf8(this.#tokenizer.tokenBytes(id));
      this.#texts.set(id, text);
    }
    return text;
  }
}

/**
 * UTF-8 bytes as text, each byte that does not belong to a whole, well-formed character written `\xNN` (so the
 * pieces of a character split across tokens stay visible and distinct).
 *
 * @example renderUtf8(Uint8Array.of(0x68, 0xe4, 0xb8)) // 'h\xe4\xb8'
 */
export function renderUtf8(bytes: Uint8Array): string {
  let text = '';
  let index = 0;
  while (index < bytes.length) {
    const length = characterLength(bytes, index);
    if (length === 0) {
      text += `\\x${(bytes[index] as number).toString(16).padStart(2, '0')}`;
      index += 1;
    } else {
      text += decoder.decode(bytes.subarray(index, index + length));
      index += length;
    }
  }
  return text;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The byte length of the well-formed character at `index` (RFC 3629 table 3-7), 0 when there is none. */
function characterLength(bytes: Uint8Array, index: number): number {
  const first = bytes[index] as number;
  if (first < 0x80) return 1;
  const [length, low, high] =
    first >= 0xc2 && first <= 0xdf
      ? [2, 0x80, 0xbf]
      : first === 0xe0
        ? [3, 0xa0, 0xbf]
        : first === 0xed
          ? [3, 0x80, 0x9f]
          : first >= 0xe1 && first <= 0xef
            ? [3, 0x80, 0xbf]
            : first === 0xf0
              ? [4, 0x90, 0xbf]
              : first === 0xf4
                ? [4, 0x80, 0x8f]
                : first >= 0xf1 && first <= 0xf3
                  ? [4, 0x80, 0xbf]
                  : [0, 0, 0];
  if (length === 0 || index + length > bytes.length) return 0;
  const second = bytes[index + 1] as number;
  if (second < low || second > high) return 0;
  for (let next = 2; next < length; next++) {
    const byte = bytes[index + next] as number;
    if (byte < 0x80 || byte > 0xbf) return 0;
  }
  return length;
}
