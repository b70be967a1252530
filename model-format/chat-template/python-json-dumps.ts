/**
 * Serializes like Python's `json.dumps(value, ensure_ascii=False)`: `", "` between items and `": "` after
 * keys. vLLM's hermes parser builds tool-call `arguments` this way, and Jinja's `tojson` in chat templates
 * prints tool calls the same way, so the text a model generates and the text a template renders agree.
 * (Floats that happen to be whole, like Python's `1.0`, print as `1`: JavaScript keeps no such difference.)
 *
 * @example
 * pythonJsonDumps({ city: 'Paris', days: [1, 2] }); // '{"city": "Paris", "days": [1, 2]}'
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((item) => pythonJsonDumps(item)).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${pythonJsonDumps(item)}`).join(', ')}}`;
  }
  if (typeof value === 'number') {
    // json.dumps writes NaN/Infinity; JSON.stringify would write null
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  }
  return JSON.stringify(value);
}
