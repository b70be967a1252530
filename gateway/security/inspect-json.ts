/** Why a parsed JSON body is refused, or null when it is fine. */
export type JsonProblem = 'too-deep' | 'prototype-key';

/**
 * Walks a parsed JSON value once, without recursion (a body nested 100k levels deep must not overflow the stack
 * here), and reports the first problem: containers nested deeper than `maxDepth` (the code after the front door
 * recurses: JSON.stringify, zod, structured clone; 5000 levels already overflowed it), or a key that could rewrite
 * a prototype further on (`__proto__`, or `constructor` holding `prototype`: the keys secure-json-parse refuses,
 * as fastify's own JSON parser did).
 *
 * @example inspectJson(JSON.parse('{"a":[[1]]}'), 2) // 'too-deep' (the object is level 1, the arrays 2 and 3)
 * @example inspectJson(JSON.parse('{"__proto__":{"x":1}}'), 64) // 'prototype-key'
 */
export function inspectJson(value: unknown, maxDepth: number): JsonProblem | null {
  if (typeof value !== 'object' || value === null) return null;
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
        if (typeof child === 'object' && child !== null) {
          containers.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const record = container as Record<string, unknown>;
    for (const key in record) {
      if (key === '__proto__') return 'prototype-key';
      const child = record[key];
      if (typeof child !== 'object' || child === null) continue;
      if (key === 'constructor' && Object.hasOwn(child, 'prototype')) return 'prototype-key';
      containers.push(child);
      depths.push(depth + 1);
    }
  }
  return null;
}
