/**
 * Prints a value as Python's `json.dumps(value, ensure_ascii=False)` does: `", "` between items, `": "` after keys.
 * The Qwen3 chat template prints tool-call arguments with `tojson` (the same spacing), so a reply the simulator
 * writes this way renders identically when it comes back as history; vLLM's Hermes parser also re-dumps a parsed
 * call's `arguments` this way for a non-streamed message. (A whole float such as Python's `1.0` prints as `1`:
 * JavaScript keeps no such difference.) The simulator's own copy: it shares no code with the gateway's parsers.
 *
 * @example
 * pythonJsonDumps({ city: 'Paris', days: [1, 2] }); // '{"city": "Paris", "days": [1, 2]}'
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((item) => pythonJsonDumps(item)).join(', ')}]`;
  if (typeof value === 'object') {
    const fields: string[] = [];
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (item !== undefined) fields.push(`${JSON.stringify(key)}: ${pythonJsonDumps(item)}`);
    }
    return `{${fields.join(', ')}}`;
  }
  // json.dumps writes NaN and Infinity as such; JSON.stringify would write null
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  return JSON.stringify(value);
}
