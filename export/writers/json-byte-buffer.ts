import { MAX_FLOAT32_BYTES, writeFloat32, writeInteger } from './decimal-digits.js';
import { invalidExportValue } from './invalid-export-value.js';

const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
/** the longest int32 or uint32 in decimal, with its sign and a comma */
const MAX_INTEGER_BYTES = 12;

/** Integer typed arrays: every element is an integer below 2^32 in magnitude. */
export type IntegerArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array;

/**
 * A growable byte buffer that JSONL lines are written into. Token ids and float32 logprobs are written digit by
 * digit (decimal-digits.ts), text through Buffer#write. `truncate(length)` drops a partly written row.
 *
 * @example
 * const buffer = new JsonByteBuffer();
 * buffer.appendText('{"ids":');
 * buffer.appendIntegerArray(Int32Array.of(1, -20));
 * buffer.view(); // bytes of '{"ids":[1,-20]'
 */
export class JsonByteBuffer {
  private bytes: Buffer;
  length = 0;

  constructor(initialBytes = 1 << 16) {
    this.bytes = Buffer.allocUnsafe(initialBytes);
  }

  /** Appends a string as UTF-8. */
  appendText(text: string): void {
    this.reserve(text.length * 3);
    this.length += this.bytes.write(text, this.length, 'utf8');
  }

  /** Appends a string known to be ASCII (numbers, fixed keys): latin1 skips the UTF-8 encoder. */
  appendAscii(text: string): void {
    this.reserve(text.length);
    this.length += this.bytes.write(text, this.length, 'latin1');
  }

  /** Appends `[a,b,...]` of an integer typed array. */
  appendIntegerArray(array: IntegerArray): void {
    this.reserve(2 + array.length * MAX_INTEGER_BYTES);
    const bytes = this.bytes;
    let position = this.length;
    bytes[position++] = OPEN_BRACKET;
    for (let index = 0; index < array.length; index += 1) {
      if (index !== 0) bytes[position++] = COMMA;
      position = writeInteger(bytes, position, array[index]!);
    }
    bytes[position++] = CLOSE_BRACKET;
    this.length = position;
  }

  /**
   * Appends `[a,b,...]` of a Float32Array, each the shortest decimal that reads back as the same float32.
   * Throws an EXPORT_INVALID_VALUE error (where `[index]`) on NaN or Infinity, which JSON cannot hold.
   */
  appendFloat32Array(array: Float32Array): void {
    this.reserve(2 + array.length * (MAX_FLOAT32_BYTES + 1));
    const bytes = this.bytes;
    let position = this.length;
    bytes[position++] = OPEN_BRACKET;
    for (let index = 0; index < array.length; index += 1) {
      const value = array[index]!;
      // NaN and ±Infinity are the only numbers for which value - value is not 0
      if (value - value !== 0) throw invalidExportValue(`[${index}]`, `${value} is not a finite number (JSON has no NaN or Infinity)`);
      if (index !== 0) bytes[position++] = COMMA;
      position = writeFloat32(bytes, position, value);
    }
    bytes[position++] = CLOSE_BRACKET;
    this.length = position;
  }

  /** Appends one float32 value (already rounded with Math.fround and checked finite). */
  appendFloat32(value: number): void {
    this.reserve(MAX_FLOAT32_BYTES);
    this.length = writeFloat32(this.bytes, this.length, value);
  }

  /** The bytes written so far (a view: valid until the next append or truncate). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** Forgets everything after `length` bytes (0: everything). */
  truncate(length: number): void {
    this.length = length;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + extra));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
}
