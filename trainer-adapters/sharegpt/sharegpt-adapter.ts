import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';
import { isAdapterSkip } from '../trainer-adapter.js';
import { toShareGptTurns } from './to-sharegpt-turns.js';

// LLaMA-Factory's ShareGPT columns (shared/reference/trainer-formats.md 10a), registered in dataset_info.json as
// "formatting": "sharegpt", "columns": {"messages": "conversations", "system": "system", "tools": "tools"}
const COLUMNS: readonly ColumnSpec[] = [
  {
    name: 'conversations',
    type: 'json',
    description: "turns {from: human|gpt|function_call|observation, value}, alternating asker and answerer; the last is the call's reply",
  },
  { name: 'system', type: 'string', description: 'the system prompt; "" when none' },
  { name: 'tools', type: 'string', description: 'the tool definitions as a JSON string ([{name, description, parameters}]); "" when none' },
];

const DESCRIPTION = 'LLaMA-Factory ShareGPT rows (conversations, system, tools): function_call/observation turns, reasoning in <think>';

/**
 * LLaMA-Factory ShareGPT rows from the sample's conversation. Conversations LLaMA-Factory would drop as
 * non-alternating are skipped here, counted by reason, rather than written.
 *
 * @example
 * createShareGptAdapter().toRow(exportSample);
 * // { conversations: [{ from: 'human', value: '...' }, { from: 'function_call', value: '{"name":"calculator","arguments":{"a":17,"b":25}}' }, ...], system: '', tools: '[{"name":"calculator",...}]' }
 */
export function createShareGptAdapter(): TrainerAdapter {
  return {
    format: 'sharegpt',
    shape: undefined,
    description: DESCRIPTION,
    needs: { reward: false, advantage: false, conversation: true },
    columns: COLUMNS,
    toRow: toShareGptRow,
  };
}

function toShareGptRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { conversation } = exported;
  if (conversation === undefined) return { skip: 'no_conversation' };
  const turns = toShareGptTurns(conversation.messages);
  if (isAdapterSkip(turns)) return turns;
  // the function objects, unwrapped from OpenAI's {type: 'function', function}: every LLaMA-Factory version reads these
  const tools = conversation.tools.map((tool) => (isFunctionTool(tool) ? tool.function : tool));
  return { conversations: turns.conversations, system: turns.system, tools: tools.length === 0 ? '' : JSON.stringify(tools) };
}

function isFunctionTool(tool: unknown): tool is { function: unknown } {
  return typeof tool === 'object' && tool !== null && (tool as { type?: unknown }).type === 'function' && 'function' in tool;
}

/** `--format sharegpt` */
export const SHAREGPT_FORMAT: TrainerFormat = { format: 'sharegpt', description: DESCRIPTION, create: () => createShareGptAdapter() };
