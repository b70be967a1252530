// Decimal ASCII of numbers written straight into a byte array: the JSONL hot path (token ids, logprobs), where
// going through strings (Int32Array#join, Float32Array#join) measured two to three times slower.

/** ASCII digit pairs "00".."99": two digits per division. */
const DIGIT_PAIRS = new Uint8Array(200);
for (let pair = 0; pair < 100; pair += 1) {
  DIGIT_PAIRS[2 * pair] = 48 + Math.floor(pair / 10);
  DIGIT_PAIRS[2 * pair + 1] = 48 + (pair % 10);
}
const ZERO = 48;
const MINUS = 45;
const DOT = 46;
/** powers of ten from 1e-60 to 1e60: float32 spans 1e-45 to 3.4e38, plus the digits searched */
const POWERS_OF_TEN = Array.from({ length: 121 }, (_, index) => Number(`1e${index - 60}`));
/** bytes writeFloat32 may use: sign, 9 digits, point, and up to 45 zeros or an exponent */
export const MAX_FLOAT32_BYTES = 64;

/**
 * Writes an integer whose magnitude is below 2^32 at `position` and returns the position after it.
 *
 * @example
 * const end = writeInteger(bytes, 0, -151_000); // bytes 0..6 hold "-151000"
 */
export function writeInteger(bytes: Uint8Array, position: number, value: number): number {
  let rest = value;
  if (rest < 0) {
    bytes[position++] = MINUS;
    rest = -rest;
  }
  const end = position + digitCount(rest);
  let cursor = end;
  while (rest >= 100) {
    const quotient = (rest / 100) >>> 0;
    const pair = 2 * (rest - quotient * 100);
    cursor -= 2;
    bytes[cursor] = DIGIT_PAIRS[pair]!;
    bytes[cursor + 1] = DIGIT_PAIRS[pair + 1]!;
    rest = quotient;
  }
  if (rest >= 10) {
    bytes[cursor - 2] = DIGIT_PAIRS[2 * rest]!;
    bytes[cursor - 1] = DIGIT_PAIRS[2 * rest + 1]!;
  } else {
    bytes[cursor - 1] = ZERO + rest;
  }
  return end;
}

/**
 * Writes the shortest decimal that reads back as the same float32 (at most 9 significant digits, against 17 for
 * the double the float32 widens to), laid out as JavaScript's Number#toString lays out that decimal: `0.1`,
 * `-2.5e-7`, `123456790`. `value` must be a finite float32 (a Float32Array element). Returns the position after it.
 *
 * @example
 * writeFloat32(bytes, 0, Math.fround(0.1)); // "0.1" (String would give "0.10000000149011612")
 */
export function writeFloat32(bytes: Uint8Array, position: number, value: number): number {
  if (value === 0) {
    bytes[position] = ZERO;
    return position + 1;
  }
  let magnitude = value;
  if (value < 0) {
    bytes[position++] = MINUS;
    magnitude = -value;
  }
  // the shortest digit count p: 7 suffices for most float32 values, so look down from 7, else up to 9
  const exponent = Math.floor(Math.log10(magnitude));
  let scale = shortestScale(magnitude, exponent);
  if (scale === NO_SCALE) return writeAscii(bytes, position, String(magnitude));
  let digits = scaledDigits;
  while (digits % 10 === 0) {
    digits /= 10;
    scale -= 1;
  }
  return writeScaled(bytes, position, digits, scale);
}

/**
 * The shortest float32 decimal as a string, by writeFloat32's rules.
 *
 * @example
 * formatFloat32(Math.fround(-0.3)); // "-0.3"
 */
export function formatFloat32(value: number): string {
  const bytes = new Uint8Array(MAX_FLOAT32_BYTES);
  return Buffer.from(bytes.buffer, 0, writeFloat32(bytes, 0, value)).toString('latin1');
}

const NO_SCALE = 1000;
/** the integer found by the last call of fitsWithDigits (a module variable rather than an allocated pair) */
let scaledDigits = 0;

function shortestScale(magnitude: number, exponent: number): number {
  if (fitsWithDigits(magnitude, exponent, 7)) {
    let digits = scaledDigits;
    let precision = 6;
    while (precision >= 1 && fitsWithDigits(magnitude, exponent, precision)) {
      digits = scaledDigits;
      precision -= 1;
    }
    scaledDigits = digits;
    return precision + 1 - 1 - exponent;
  }
  if (fitsWithDigits(magnitude, exponent, 8)) return 8 - 1 - exponent;
  if (fitsWithDigits(magnitude, exponent, 9)) return 9 - 1 - exponent;
  return NO_SCALE;
}

/**
 * Whether `precision` significant digits round back to the float32: m = round(magnitude * 10^scale), then
 * m / 10^scale is the double nearest the decimal m * 10^-scale (IEEE division rounds correctly while both are
 * exact), so fround of it is what a reader parsing the text gets. When a power of ten is inexact the check may
 * fail for every precision; writeFloat32 then falls back to String, which is always exact.
 */
function fitsWithDigits(magnitude: number, exponent: number, precision: number): boolean {
  const scale = precision - 1 - exponent;
  let candidate: number;
  if (scale >= 0) {
    const power = POWERS_OF_TEN[60 + scale]!;
    scaledDigits = Math.round(magnitude * power);
    candidate = scaledDigits / power;
  } else {
    const power = POWERS_OF_TEN[60 - scale]!;
    scaledDigits = Math.round(magnitude / power);
    candidate = scaledDigits * power;
  }
  return Math.fround(candidate) === magnitude;
}

/** digits * 10^-scale in Number#toString's layout: plain for decimal exponents in [-7, 21), else d.ddde±x. */
function writeScaled(bytes: Uint8Array, position: number, digits: number, scale: number): number {
  const length = digitCount(digits);
  const pointAt = length - scale; // the value is 0.<digits> * 10^pointAt
  let cursor = position;
  if (pointAt >= length && pointAt <= 21) {
    cursor = writeInteger(bytes, cursor, digits);
    for (let zero = length; zero < pointAt; zero += 1) bytes[cursor++] = ZERO;
    return cursor;
  }
  if (pointAt > 0 && pointAt <= 21) {
    const end = writeInteger(bytes, cursor + 1, digits); // leave room for the point, then shift the integer part left
    bytes.copyWithin(cursor, cursor + 1, cursor + 1 + pointAt);
    bytes[cursor + pointAt] = DOT;
    return end;
  }
  if (pointAt > -6 && pointAt <= 0) {
    bytes[cursor++] = ZERO;
    bytes[cursor++] = DOT;
    for (let zero = 0; zero < -pointAt; zero += 1) bytes[cursor++] = ZERO;
    return writeInteger(bytes, cursor, digits);
  }
  const end = writeInteger(bytes, cursor + 1, digits);
  bytes[cursor] = bytes[cursor + 1]!;
  cursor = end;
  if (length > 1) bytes[cursor - length] = DOT;
  else cursor -= 1;
  cursor = writeAscii(bytes, cursor, pointAt - 1 < 0 ? 'e-' : 'e+');
  return writeInteger(bytes, cursor, Math.abs(pointAt - 1));
}

function writeAscii(bytes: Uint8Array, position: number, text: string): number {
  for (let index = 0; index < text.length; index += 1) bytes[position + index] = text.charCodeAt(index);
  return position + text.length;
}

function digitCount(value: number): number {
  if (value < 10) return 1;
  if (value < 100) return 2;
  if (value < 1_000) return 3;
  if (value < 10_000) return 4;
  if (value < 100_000) return 5;
  if (value < 1_000_000) return 6;
  if (value < 10_000_000) return 7;
  if (value < 100_000_000) return 8;
  if (value < 1_000_000_000) return 9;
  return 10;
}
