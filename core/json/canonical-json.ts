import { isRecord } from './is-record.js';

/**
 * JSON text of a JSON value with the keys of every object sorted (by UTF-16 code units, as `Array.prototype.sort`
 * and RFC 8785 order them), so two values that differ only in key order read the same. The rest is
 * `JSON.stringify`'s: numbers and strings as it prints them, `undefined` members left out, `undefined` array
 * elements and an `undefined` value as `null`.
 *
 * The text is built here, not by re-ordering objects in a `JSON.stringify` replacer: an object enumerates its
 * integer-like keys ("9", "10") first, in numeric order, whatever order they were added in, so a replacer would
 * not sort them. Both uses compare the text and store nothing: token-faithful's prefix hashes live in memory
 * (gateway/token-faithful/conversation-hashes.ts), reconstruct compares the turns of one run (read-chat-turn.ts).
 *
 * @example canonicalJson({ b: 1, a: { d: [2], c: 3 } }) // '{"a":{"c":3,"d":[2]},"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return writeJson(value) ?? 'null';
}

function writeJson(value: unknown): string | undefined {
  if (Array.isArray(value)) return `[${Array.from(value, (item: unknown) => writeJson(item) ?? 'null').join(',')}]`;
  if (!isRecord(value)) return JSON.stringify(value);
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const text = writeJson(value[key]);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
