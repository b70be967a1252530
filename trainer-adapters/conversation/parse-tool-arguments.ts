/**
 * A tool call's `arguments` text as the JSON value it encodes, for formats whose templates take arguments as an
 * object (TRL's tool-calling rows, LLaMA-Factory's function_call). Text that is not JSON (a model that wrote broken
 * arguments) stays the string it was: chat templates print a string argument as is (Qwen3: `arguments is string`),
 * so the row still renders what the model wrote. Empty text is `{}`, as vLLM reads a call without arguments.
 *
 * @example
 * parseToolArguments('{"a": 17, "b": 25}'); // { a: 17, b: 25 }
 * parseToolArguments('{"a": 17,');          // '{"a": 17,'
 */
export function parseToolArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
