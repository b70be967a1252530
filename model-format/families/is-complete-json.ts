/**
 * Whether a tool call's text so far is one whole JSON value: a streaming tool-call parser sends the rest of the
 * arguments once it is (vLLM's parsers try `json.loads` the same way).
 *
 * @example
 * isCompleteJson('{"name": "ls"}'); // true
 * isCompleteJson('{"name": "l'); // false
 */
export function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
