import fc from 'fast-check';

/** What makes a JSON text one no route may take though it parses (issue 12). */
export type PoisonKind = 'lone-surrogate' | 'non-finite-number';

/** A JSON text that parses, holding one poison somewhere, and which kind. */
export interface PoisonedJson {
  text: string;
  kind: PoisonKind;
}

/**
 * A string with a lone UTF-16 surrogate among ordinary text and whole pairs: a high one not followed by a low one,
 * or a low one not preceded by a high one (emoji on either side keep it lone: they start high and end low).
 */
export const loneSurrogateText: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 6 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 6 }), fc.boolean())
  .map(([before, unit, after, emoji]) => `${before}${emoji ? '\u{1F600}' : ''}${String.fromCharCode(unit)}${emoji ? '\u{1F600}' : ''}${after}`);

/**
 * Number literals past Number.MAX_VALUE, which JSON.parse makes ±Infinity: a mantissa of 1 or more times 10^309 or
 * more, in every spelling JSON allows, integers of 310 digits or more, and the edge just past MAX_VALUE.
 */
export const nonFiniteLiteral: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.integer({ min: 1, max: 999 }),
      fc.constantFrom('', '.5', '.000001'),
      fc.constantFrom('e', 'E', 'e+', 'E+'),
      fc.integer({ min: 309, max: 100_000 }),
    )
    .map(([sign, mantissa, fraction, marker, exponent]) => `${sign}${mantissa}${fraction}${marker}${exponent}`),
  fc
    .tuple(fc.constantFrom('', '-'), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 309, max: 600 }))
    .map(([sign, first, zeros]) => `${sign}${first}${'0'.repeat(zeros)}`),
  fc.constantFrom('1e400', '-1e400', '1.8e308', '-1.7976931348623159e308'),
);

const VALUE_SENTINEL = '__tokentap_poison_value__';
const KEY_SENTINEL = '__tokentap_poison_key__';

/**
 * `base` with one poison put in: a lone surrogate as a string value or as a key, or a non-finite number literal
 * written into the raw text (JSON.stringify cannot make one), in place of one of the body's own fields or under a
 * new one, at the top or nested in up to three arrays and objects.
 *
 * @example fc.sample(poisonedJson(fc.constant({ model: 'm' })), 1) // [{ text: '{"model":[0,1e400]}', kind: 'non-finite-number' }]
 */
export function poisonedJson(base: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<PoisonedJson> {
  const poison = fc.oneof(
    fc.tuple(loneSurrogateText, fc.boolean()).map(([text, asKey]) => ({ kind: 'lone-surrogate' as const, literal: JSON.stringify(text), asKey })),
    nonFiniteLiteral.map((literal) => ({ kind: 'non-finite-number' as const, literal, asKey: false })),
  );
  const wrappers = fc.array(fc.constantFrom('array', 'object'), { maxLength: 3 });
  return fc.tuple(base, poison, wrappers, fc.nat({ max: 6 })).map(([body, { kind, literal, asKey }, around, fieldIndex]) => {
    const keys = Object.keys(body);
    const field = keys[fieldIndex] ?? 'poisoned';
    let holder: unknown = asKey ? { [KEY_SENTINEL]: 1 } : VALUE_SENTINEL;
    for (const wrapper of around) holder = wrapper === 'array' ? [0, holder] : { inner: holder };
    // a function, not a string: the literal may hold `$&`, which a replacement string would expand
    const text = JSON.stringify({ ...body, [field]: holder })
      .replace(JSON.stringify(KEY_SENTINEL), () => literal)
      .replace(JSON.stringify(VALUE_SENTINEL), () => literal);
    return { text, kind };
  });
}

/**
 * The oracle, independent of the gateway's walk: whether a JSON text parses to a key or string with a lone
 * surrogate, or to a non-finite number. False for text that is not JSON.
 */
export function isPoisonedJson(text: string): boolean {
  let poisoned = false;
  try {
    JSON.parse(text, (key, value: unknown) => {
      if (!key.isWellFormed() || (typeof value === 'string' && !value.isWellFormed()) || (typeof value === 'number' && !Number.isFinite(value)))
        poisoned = true;
      return value;
    });
  } catch {
    return false;
  }
  return poisoned;
}
