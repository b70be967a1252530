import { isInt32TokenId } from '../core/token-ids/is-int32-token-id.js';
import { TokentapError } from '../core/errors/tokentap-error.js';

/**
 * Token ids and logprobs are stored as packed little-endian bytes (Int32 / Float32), not JSON text:
 * 4 bytes per token, and the bytes mean the same on every machine that reads the file.
 */

const IS_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Copies token ids into a fresh Int32Array, refusing any value that is no token id an Int32 holds exactly
 * (`isInt32TokenId`: a silently wrapped id would train on the wrong token, and no tokenizer gives a negative one).
 */
export function toTokenIdArray(ids: readonly number[] | Int32Array, field: string): Int32Array {
  for (let index = 0; index < ids.length; index++) {
    const id = ids[index];
    if (!isInt32TokenId(id)) {
      throw new TokentapError('STORE_INVALID_INPUT', { message: `${field}[${index}] = ${String(id)} is not an Int32 token id` });
    }
  }
  return ids instanceof Int32Array ? ids.slice() : Int32Array.from(ids);
}

/** Copies logprobs into a Float32Array; Float32 precision is what training reads anyway. */
export function toLogprobArray(logprobs: readonly number[] | Float32Array): Float32Array {
  return Float32Array.from(logprobs);
}

/** Int32 values -> little-endian bytes (a copy). */
export function packInt32(values: Int32Array): Buffer {
  return pack(values, (buffer, value, offset) => buffer.writeInt32LE(value, offset));
}

/** Float32 values -> little-endian bytes (a copy). */
export function packFloat32(values: Float32Array): Buffer {
  return pack(values, (buffer, value, offset) => buffer.writeFloatLE(value, offset));
}

/** Little-endian bytes -> a fresh, aligned Int32Array (a Buffer from the driver may sit at any offset). */
export function unpackInt32(bytes: Buffer): Int32Array {
  const values = new Int32Array(elementCount(bytes));
  unpack(bytes, values, (offset) => bytes.readInt32LE(offset));
  return values;
}

/** Little-endian bytes -> `into[offset, offset + count)`; returns the count. */
export function unpackInt32Into(bytes: Buffer, into: Int32Array, offset: number): number {
  const count = elementCount(bytes);
  if (offset + count > into.length)
    throw new TokentapError('TT_INVALID_ARGUMENT', { message: `${count} ids do not fit at ${offset} of ${into.length}` });
  if (IS_LITTLE_ENDIAN) new Uint8Array(into.buffer, into.byteOffset + offset * 4, count * 4).set(bytes);
  else for (let index = 0; index < count; index++) into[offset + index] = bytes.readInt32LE(index * 4);
  return count;
}

/** How many Int32 values packed bytes hold. */
export function int32Count(bytes: Buffer): number {
  return elementCount(bytes);
}

/** Little-endian bytes -> a fresh, aligned Float32Array. */
export function unpackFloat32(bytes: Buffer): Float32Array {
  const values = new Float32Array(elementCount(bytes));
  unpack(bytes, values, (offset) => bytes.readFloatLE(offset));
  return values;
}

function pack(values: Int32Array | Float32Array, write: (buffer: Buffer, value: number, offset: number) => void): Buffer {
  if (IS_LITTLE_ENDIAN) return Buffer.from(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  const bytes = Buffer.allocUnsafe(values.length * 4);
  values.forEach((value, index) => write(bytes, value, index * 4));
  return bytes;
}

function unpack(bytes: Buffer, into: Int32Array | Float32Array, read: (offset: number) => number): void {
  if (IS_LITTLE_ENDIAN) {
    new Uint8Array(into.buffer).set(bytes);
    return;
  }
  for (let index = 0; index < into.length; index++) into[index] = read(index * 4);
}

function elementCount(bytes: Buffer): number {
  if (bytes.byteLength % 4 !== 0) {
    throw new TokentapError('STORE_CORRUPT', { message: `a packed array has ${bytes.byteLength} bytes, not a multiple of 4` });
  }
  return bytes.byteLength / 4;
}
