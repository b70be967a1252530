/**
 * Reads the longest JSON value a prefix of `text` makes, completing what is still open, the way the
 * `partial-json-parser` package does for vLLM's streaming tool parsers (`Allow.ALL`, or `Allow.ALL & ~Allow.STR`):
 * open objects and arrays are closed, a partial number or `true`/`false`/`null` is taken as far as it reads, a key
 * without its value is dropped, and an unterminated string is kept as far as it goes when `partialStrings` is true,
 * else dropped with its key. Returns the value and how much of `text` it used (`end`: the whole text when the value is
 * still open; just past the value when it closed and more text follows, vLLM's `raw_decode` on "Extra data"), or
 * null where the text cannot start a JSON value (vLLM's `MalformedJSON`).
 *
 * @example
 * readPartialJson('{"name": "ls", "parameters": {"path": "sr', { partialStrings: false }); // { value: { name: 'ls', parameters: {} }, end: 41, complete: false }
 */
export function readPartialJson(text: string, options: { partialStrings: boolean }): { value: unknown; end: number; complete: boolean } | null {
  const reader = new Reader(text, options.partialStrings);
  reader.skipBlanks();
  const read = reader.value();
  if (read === DROPPED || read === MALFORMED) return null;
  if (reader.ended) return { value: read, end: text.length, complete: false };
  const end = reader.position;
  reader.skipBlanks();
  return { value: read, end: reader.position === text.length ? text.length : end, complete: true };
}

const DROPPED = Symbol('dropped');
const MALFORMED = Symbol('malformed');
type Read = unknown;

class Reader {
  position = 0;
  /** true once the text ran out inside a value */
  ended = false;

  constructor(
    private readonly text: string,
    private readonly partialStrings: boolean,
  ) {}

  skipBlanks(): void {
    while (this.position < this.text.length && ' \t\n\r'.includes(this.text[this.position]!)) this.position++;
  }

  value(): Read {
    this.skipBlanks();
    if (this.position >= this.text.length) {
      this.ended = true;
      return DROPPED;
    }
    const character = this.text[this.position]!;
    if (character === '{') return this.object();
    if (character === '[') return this.array();
    if (character === '"') return this.string();
    if (character === '-' || (character >= '0' && character <= '9')) return this.number();
    for (const [word, literal] of LITERALS) {
      const rest = this.text.slice(this.position, this.position + word.length);
      if (rest === word) {
        this.position += word.length;
        return literal;
      }
      if (this.position + rest.length === this.text.length && word.startsWith(rest)) {
        this.position = this.text.length;
        this.ended = true;
        return literal;
      }
    }
    return MALFORMED;
  }

  object(): Read {
    this.position++;
    const result: Record<string, unknown> = {};
    for (;;) {
      this.skipBlanks();
      if (this.position >= this.text.length) return this.endedWith(result);
      if (this.text[this.position] === '}') {
        this.position++;
        return result;
      }
      if (this.text[this.position] === ',') {
        this.position++;
        continue;
      }
      if (this.text[this.position] !== '"') return MALFORMED;
      // a key still being written is dropped, whatever the flags
      const key = this.stringWith(false);
      if (key === MALFORMED) return MALFORMED;
      if (this.ended) return result;
      this.skipBlanks();
      if (this.position >= this.text.length) return this.endedWith(result);
      if (this.text[this.position] !== ':') return MALFORMED;
      this.position++;
      const value = this.value();
      if (value === MALFORMED) return MALFORMED;
      if (value !== DROPPED) result[key as string] = value;
      if (this.ended) return result;
    }
  }

  array(): Read {
    this.position++;
    const result: unknown[] = [];
    for (;;) {
      this.skipBlanks();
      if (this.position >= this.text.length) return this.endedWith(result);
      if (this.text[this.position] === ']') {
        this.position++;
        return result;
      }
      if (this.text[this.position] === ',') {
        this.position++;
        continue;
      }
      const value = this.value();
      if (value === MALFORMED) return MALFORMED;
      if (value !== DROPPED) result.push(value);
      if (this.ended) return result;
    }
  }

  string(): Read {
    return this.stringWith(this.partialStrings);
  }

  /** A string; unterminated, it is kept as far as it goes when `partial`, else dropped. */
  stringWith(partial: boolean): Read {
    let index = this.position + 1;
    let escaped = false;
    for (; index < this.text.length; index++) {
      const character = this.text[index];
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') break;
    }
    if (index < this.text.length) {
      const raw = this.text.slice(this.position, index + 1);
      this.position = index + 1;
      try {
        return JSON.parse(raw) as string;
      } catch {
        return MALFORMED;
      }
    }
    this.ended = true;
    if (!partial) {
      this.position = this.text.length;
      return DROPPED;
    }
    // an escape cut in the middle is left out
    const raw = this.text.slice(this.position);
    this.position = this.text.length;
    for (let cut = 0; cut < 6; cut++) {
      try {
        return JSON.parse(`${raw.slice(0, raw.length - cut)}"`) as string;
      } catch {
        // try a shorter prefix
      }
    }
    return '';
  }

  number(): Read {
    const match = /^-?(0|[1-9]\d*)?(\.\d*)?([eE][-+]?\d*)?/.exec(this.text.slice(this.position))!;
    const raw = match[0];
    this.position += raw.length;
    if (this.position >= this.text.length) this.ended = true;
    const readable = /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(raw)?.[0];
    if (readable === undefined) return this.ended ? DROPPED : MALFORMED;
    if (readable !== raw && !this.ended) return MALFORMED;
    return Number(readable);
  }

  endedWith(result: unknown): Read {
    this.ended = true;
    return result;
  }
}

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];
