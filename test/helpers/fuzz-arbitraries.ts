import fc from 'fast-check';
import { poisonedJson } from './poisoned-json.js';

/** Any JSON value, shallow enough to stay fast. */
export const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Mostly the valid shape, sometimes any JSON: enough valid requests reach the backend to exercise the relay. */
export function mostly<T>(valid: fc.Arbitrary<T>, validWeight = 10): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: validWeight, arbitrary: valid }, { weight: 1, arbitrary: anyJson });
}

/**
 * Request bodies for a front door: its valid shape mostly, then arbitrary JSON, text that is not JSON, and the
 * valid shape with a lone surrogate or a number past Number.MAX_VALUE put in (poisoned-json.ts: always refused).
 */
export function fuzzPayload(request: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const asRecord = request.map((body) =>
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : { body },
  );
  return fc.oneof(
    { weight: 8, arbitrary: request.map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: anyJson.map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: poisonedJson(asRecord).map((poisoned) => poisoned.text) },
  );
}
