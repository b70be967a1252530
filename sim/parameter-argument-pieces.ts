import { pythonJsonDumps } from './python-json-dumps.js';
import type { ArgumentPiece } from './render-reply-text.js';

/** One parameter of an XML-style call and where its closing tag ends in the reply text. */
export interface WrittenParameter {
  key: string;
  value: unknown;
  end: number;
}

/**
 * The streamed arguments of a call written as tagged parameters (Qwen3.5's `<parameter=K>`, GLM's `<arg_key>`, DSML's
 * `<｜DSML｜parameter>`), as vLLM's parsers for them stream JSON rebuilt from the parameters: each parameter once its
 * closing tag has come (`{"K": V`, then `, "K": V`; vllm/tool_parsers/qwen3coder_tool_parser.py and
 * deepseekv32_tool_parser.py, `extract_tool_calls_streaming`), the closing `}` (`{}` without parameters) at the call's
 * end. Joined they are the whole call's `json.dumps` arguments.
 *
 * @example
 * parameterArgumentPieces([{ key: 'path', value: '.', end: 40 }], 60); // [{ at: 40, text: '{"path": "."' }, { at: 60, text: '}' }]
 */
export function parameterArgumentPieces(parameters: readonly WrittenParameter[], callEnd: number): ArgumentPiece[] {
  const pieces = parameters.map(({ key, value, end }, index) => ({
    at: end,
    text: `${index === 0 ? '{' : ', '}${JSON.stringify(key)}: ${pythonJsonDumps(value)}`,
  }));
  pieces.push({ at: callEnd, text: parameters.length === 0 ? '{}' : '}' });
  return pieces;
}
