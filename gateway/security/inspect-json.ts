/** Why a parsed JSON body is refused, or null when it is fine. */
export type JsonProblem = 'too-deep' | 'prototype-key' | 'lone-surrogate' | 'non-finite-number';

/**
 * Walks a parsed JSON value once, without recursion (a body nested 100k levels deep must not overflow the stack
 * here), and reports the first problem:
 * - containers nested deeper than `maxDepth` (the code after the front door recurses: JSON.stringify, zod,
 *   structured clone; 5000 levels already overflowed it);
 * - a key that could rewrite a prototype further on (`__proto__`, or `constructor` holding `prototype`: the keys
 *   secure-json-parse refuses, as fastify's own JSON parser did);
 * - a key or string holding a lone UTF-16 surrogate: valid JSON (`"\udc00"`, RFC 8259 section 8.2 allows it) but
 *   not Unicode text; SQLite stored it as bytes that are not UTF-8 and Python's sqlite3 could not read the table
 *   (issue 12);
 * - a number JSON.parse turned into Infinity (`1e400`): forwarded, it became `null` and the backend silently used
 *   its default (issue 12).
 *
 * @example inspectJson(JSON.parse('{"a":[[1]]}'), 2) // 'too-deep' (the object is level 1, the arrays 2 and 3)
 * @example inspectJson(JSON.parse('{"__proto__":{"x":1}}'), 64) // 'prototype-key'
 * @example inspectJson(JSON.parse('{"model":"a\\udc00"}'), 64) // 'lone-surrogate'
 * @example inspectJson(JSON.parse('{"max_tokens":1e400}'), 64) // 'non-finite-number'
 */
export function inspectJson(value: unknown, maxDepth: number): JsonProblem | null {
  if (typeof value !== 'object' || value === null) return scalarProblem(value);
  // two parallel stacks rather than one of {container, depth} objects: this runs on every request body
  const containers: object[] = [value];
  const depths: number[] = [1];
  while (containers.length > 0) {
    const container = containers.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return 'too-deep';
    if (Array.isArray(container)) {
      // an indexed loop: a prompt of 10M token ids is one array of numbers, skipped over quickly
      for (let index = 0; index < container.length; index += 1) {
        const child: unknown = container[index];
        if (typeof child === 'number') {
          if (child - child !== 0) return 'non-finite-number';
        } else if (typeof child === 'object' && child !== null) {
          containers.push(child);
          depths.push(depth + 1);
        } else if (typeof child === 'string' && !child.isWellFormed()) {
          return 'lone-surrogate';
        }
      }
      continue;
    }
    const record = container as Record<string, unknown>;
    for (const key in record) {
      if (key === '__proto__') return 'prototype-key';
      if (!key.isWellFormed()) return 'lone-surrogate';
      const child = record[key];
      if (typeof child !== 'object' || child === null) {
        const problem = scalarProblem(child);
        if (problem !== null) return problem;
        continue;
      }
      if (key === 'constructor' && Object.hasOwn(child, 'prototype')) return 'prototype-key';
      containers.push(child);
      depths.push(depth + 1);
    }
  }
  return null;
}

/** A string or number JSON.parse can make that is refused; null for every other scalar. */
function scalarProblem(value: unknown): JsonProblem | null {
  // `isWellFormed` answers at once for a string of one-byte characters, the common case (V8 keeps those apart)
  if (typeof value === 'string') return value.isWellFormed() ? null : 'lone-surrogate';
  // JSON.parse makes no NaN, only ±Infinity from a literal past Number.MAX_VALUE; Infinity - Infinity is NaN
  if (typeof value === 'number') return value - value === 0 ? null : 'non-finite-number';
  return null;
}
