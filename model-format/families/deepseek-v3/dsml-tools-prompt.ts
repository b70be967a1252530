import { pythonJsonDumps } from '../../chat-template/python-json-dumps.js';

// DeepSeek V3.2's tool instructions, the prompt text its encoder puts before the tool schemas: data the model was
// trained on, so it is kept byte for byte (`TOOLS_SYSTEM_TEMPLATE` of DeepSeek's encoding/encoding_dsv32.py, MIT; vLLM's
// copy vllm/tokenizers/deepseek_v32_encoding.py, read at 026ddf88), with the DSML and thinking tokens filled in
const TOOL_INSTRUCTIONS = `## Tools
You have access to a set of tools you can use to answer the user's question.
You can invoke functions by writing a "<｜DSML｜function_calls>" block like the following as part of your reply to the user:
<｜DSML｜function_calls>
<｜DSML｜invoke name="$FUNCTION_NAME">
<｜DSML｜parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</｜DSML｜parameter>
...
</｜DSML｜invoke>
<｜DSML｜invoke name="$FUNCTION_NAME2">
...
</｜DSML｜invoke>
</｜DSML｜function_calls>
String and scalar parameters should be specified as is without any escaping or quotes, while lists and objects should use JSON format. The "string" attribute should be set to "true" for string type parameters and "false" for other types (numbers, booleans, arrays, objects).
If the thinking_mode is enabled, then after function results you should strongly consider outputting a thinking block. Here is an example:
<｜DSML｜function_calls>
...
</｜DSML｜function_calls>
<function_results>
...
</function_results>
<think>...thinking about results</think>
Here are the functions available in JSONSchema format:
<functions>
`;

/**
 * The tools section of a DeepSeek V3.2 prompt: the instructions, then each tool's `function` object printed like
 * Python's `json.dumps(..., ensure_ascii=False)`, one a line, inside `<functions>` … `</functions>\n`. The tools are
 * vLLM's (`tool.model_dump()`: `description` and `parameters` null when absent, see normalizeChatTools).
 *
 * @example dsmlToolsPrompt([{ type: 'function', function: { name: 'ls', description: null, parameters: null } }]).endsWith('<functions>\n{"name": "ls", "description": null, "parameters": null}\n</functions>\n') // true
 */
export function dsmlToolsPrompt(tools: ReadonlyArray<Record<string, unknown>>): string {
  const schemas = tools.map((tool) => pythonJsonDumps(tool.function));
  return `${TOOL_INSTRUCTIONS}${schemas.join('\n')}\n</functions>\n`;
}
