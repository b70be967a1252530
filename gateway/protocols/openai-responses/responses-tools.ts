import { TokentapError } from '../../../core/errors/tokentap-error.js';
import { isRecord } from '../../../core/json/is-record.js';

/** What a chat function tool stands for on the Responses side, so a chat tool call maps back to its item. */
export interface ToolTarget {
  /** `function` tools become `function_call` items; `custom` (free-form) tools become `custom_tool_call` items */
  kind: 'function' | 'custom';
  name: string;
  /** set for a member of a `namespace` tool (Codex groups sub-agent tools this way) */
  namespace?: string;
}

/** The separator between a namespace and a member in a flattened chat tool name (`multi_agent_v1__spawn_agent`). */
export const NAMESPACE_SEPARATOR = '__';

/**
 * Chat tool name <-> Responses tool, for one request. Chat tools have flat names, so a namespace member is
 * offered to the model as `namespace__member` and its call is answered as `{name: member, namespace}` (the
 * `namespace` field of openai-node's `ResponseFunctionToolCall`).
 *
 * @example names.chatName('spawn_agent', 'multi_agent_v1') // 'multi_agent_v1__spawn_agent'
 */
export class ResponsesToolNames {
  readonly #byChatName = new Map<string, ToolTarget>();

  add(target: ToolTarget): string {
    const chatName = this.chatName(target.name, target.namespace);
    if (!this.#byChatName.has(chatName)) this.#byChatName.set(chatName, target);
    return chatName;
  }

  chatName(name: string, namespace?: string | null): string {
    return namespace ? `${namespace}${NAMESPACE_SEPARATOR}${name}` : name;
  }

  /** The Responses tool behind a chat tool name; a name the model made up is taken as a plain function. */
  target(chatName: string): ToolTarget {
    return this.#byChatName.get(chatName) ?? { kind: 'function', name: chatName };
  }

  /** A `tool_choice` names a tool without its namespace: find its chat name. */
  chatNameForChoice(name: string): string {
    if (this.#byChatName.has(name)) return name;
    for (const [chatName, target] of this.#byChatName) if (target.name === name) return chatName;
    return name;
  }
}

export interface TranslatedTools {
  chatTools: Array<Record<string, unknown>>;
  names: ResponsesToolNames;
  /** hosted tools the backend cannot run (`web_search`, `file_search`, ...), by type (and name when given) */
  droppedTools: string[];
}

/** Custom tools take free-form text: the chat model writes it as the one string argument `input`. */
const CUSTOM_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input of this tool, as free-form text.' } },
  required: ['input'],
  additionalProperties: false,
};

function requireName(tool: Record<string, unknown>, param: string): string {
  if (typeof tool.name !== 'string' || tool.name === '') {
    throw new TokentapError('TT_INVALID_REQUEST', { message: `${param}.name must be a non-empty string`, param: `${param}.name` });
  }
  return tool.name;
}

function functionTool(name: string, description: unknown, parameters: unknown): Record<string, unknown> {
  const definition: Record<string, unknown> = { name };
  if (typeof description === 'string') definition.description = description;
  if (isRecord(parameters)) definition.parameters = parameters;
  return { type: 'function', function: definition };
}

/** A custom tool's grammar (Codex's `apply_patch` is a lark grammar) goes into the description the model reads. */
function customDescription(tool: Record<string, unknown>): string | undefined {
  const description = typeof tool.description === 'string' ? tool.description : undefined;
  const format = isRecord(tool.format) ? tool.format : undefined;
  if (format?.type !== 'grammar' || typeof format.definition !== 'string') return description;
  const syntax = typeof format.syntax === 'string' ? format.syntax : 'grammar';
  const grammar = `The input must match this ${syntax} grammar:\n${format.definition}`;
  return description === undefined ? grammar : `${description}\n\n${grammar}`;
}

function memberTool(tool: unknown, param: string, names: ResponsesToolNames, namespace?: string): Record<string, unknown> {
  if (!isRecord(tool)) throw new TokentapError('TT_INVALID_REQUEST', { message: `${param} must be an object`, param });
  const name = requireName(tool, param);
  if (tool.type === 'function') {
    const chatName = names.add({ kind: 'function', name, ...(namespace === undefined ? {} : { namespace }) });
    return functionTool(chatName, tool.description, tool.parameters);
  }
  if (tool.type === 'custom') {
    const chatName = names.add({ kind: 'custom', name, ...(namespace === undefined ? {} : { namespace }) });
    return functionTool(chatName, customDescription(tool), CUSTOM_TOOL_PARAMETERS);
  }
  throw new TokentapError('TT_INVALID_REQUEST', { message: `${param}.type must be function or custom inside a namespace`, param: `${param}.type` });
}

/**
 * Responses tools to chat function tools: `function` as is (`strict` is not forwarded: vLLM's own Responses
 * path drops it too), `custom` as a function of one string `input`, `namespace` flattened into its members,
 * every other (hosted) tool dropped and reported.
 *
 * @example translateResponsesTools([{ type: 'web_search' }, { type: 'function', name: 'ls' }]).droppedTools // ['web_search']
 */
export function translateResponsesTools(tools: unknown[] | null | undefined): TranslatedTools {
  const names = new ResponsesToolNames();
  const chatTools: Array<Record<string, unknown>> = [];
  const droppedTools: string[] = [];
  (tools ?? []).forEach((tool, index) => {
    const param = `tools[${index}]`;
    if (!isRecord(tool) || typeof tool.type !== 'string') {
      throw new TokentapError('TT_INVALID_REQUEST', { message: `${param} must be an object with a string type`, param });
    }
    if (tool.type === 'function' || tool.type === 'custom') {
      chatTools.push(memberTool(tool, param, names));
    } else if (tool.type === 'namespace') {
      const namespace = requireName(tool, param);
      if (!Array.isArray(tool.tools))
        throw new TokentapError('TT_INVALID_REQUEST', { message: `${param}.tools must be an array`, param: `${param}.tools` });
      tool.tools.forEach((member, memberIndex) => chatTools.push(memberTool(member, `${param}.tools[${memberIndex}]`, names, namespace)));
    } else {
      droppedTools.push(typeof tool.name === 'string' ? `${tool.type}:${tool.name}` : tool.type);
    }
  });
  return { chatTools, names, droppedTools };
}

/**
 * Responses `tool_choice` to chat's. `{type: 'function'|'custom', name}` names the chat function;
 * `allowed_tools` keeps only its mode; a hosted tool's choice has nothing to force and is left out (the
 * caller records it). Returns undefined for "leave it out".
 *
 * @example translateToolChoice({ type: 'function', name: 'ls' }, names) // { type: 'function', function: { name: 'ls' } }
 */
export function translateToolChoice(choice: unknown, names: ResponsesToolNames): unknown {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (!isRecord(choice) || typeof choice.type !== 'string') {
    throw new TokentapError('TT_INVALID_REQUEST', {
      message: 'tool_choice must be auto, none, required or an object with a type',
      param: 'tool_choice',
    });
  }
  if (choice.type === 'function' || choice.type === 'custom') {
    if (typeof choice.name !== 'string')
      throw new TokentapError('TT_INVALID_REQUEST', { message: 'tool_choice.name must be a string', param: 'tool_choice.name' });
    return { type: 'function', function: { name: names.chatNameForChoice(choice.name) } };
  }
  if (choice.type === 'allowed_tools') return choice.mode === 'required' ? 'required' : 'auto';
  return undefined;
}
