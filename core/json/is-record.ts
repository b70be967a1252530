/** A plain JSON object (not null, not an array). @example isRecord({ a: 1 }) // true */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
