import type { ConversationMessage, ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';

/** A message in OpenAI's chat fine-tuning form. */
export interface OpenAiTrainingMessage {
  role: ConversationMessage['role'];
  /** absent on an assistant message that only calls tools */
  content?: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

const COLUMNS: readonly ColumnSpec[] = [
  {
    name: 'messages',
    type: 'json',
    description: "the last call's messages, then its reply as the final assistant message (OpenAI form: arguments as JSON strings, no reasoning)",
  },
  {
    name: 'tools',
    type: 'json',
    description: 'the tool definitions the call offered, as sent (OpenAI function-tool form); left out of a JSONL line when none',
  },
];

const DESCRIPTION = 'OpenAI chat fine-tuning rows (messages, tools): every assistant message trained, reasoning left out';

/**
 * Rows in OpenAI's chat fine-tuning form, which OpenAI-compatible fine-tuning services and many SFT tools read:
 * `{messages, tools}`, tool calls with their `arguments` as the JSON text the model wrote and their ids, tool
 * results with their `tool_call_id`. No `weight` is written, so every assistant message is trained (OpenAI's
 * default); the form has no reasoning field, so reasoning is left out (trl-sft keeps it).
 *
 * @example
 * createSftMessagesAdapter().toRow(exportSample);
 * // { messages: [{ role: 'user', content: 'What is 17 + 25?' }, { role: 'assistant', tool_calls: [...] }, ...], tools: [...] }
 */
export function createSftMessagesAdapter(): TrainerAdapter {
  return {
    format: 'sft-messages',
    shape: undefined,
    description: DESCRIPTION,
    needs: { reward: false, advantage: false, conversation: true },
    columns: COLUMNS,
    toRow: toSftMessagesRow,
    // OpenAI's examples leave `tools` out when there are none; Parquet keeps the column ([])
    toJson: (row) => (Array.isArray(row.tools) && row.tools.length === 0 ? { messages: row.messages } : row),
  };
}

function toSftMessagesRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { conversation } = exported;
  if (conversation === undefined) return { skip: 'no_conversation' };
  return { messages: conversation.messages.map(toOpenAiMessage), tools: conversation.tools };
}

/**
 * @example toOpenAiMessage({ role: 'tool', content: '42', tool_call_id: 'c1', name: 'add' }); // { role: 'tool', content: '42', tool_call_id: 'c1' }
 */
export function toOpenAiMessage(message: ConversationMessage): OpenAiTrainingMessage {
  const calls = message.tool_calls ?? [];
  const result: OpenAiTrainingMessage = { role: message.role };
  if (message.content !== '' || calls.length === 0) result.content = message.content;
  if (calls.length > 0) result.tool_calls = calls.map((call) => ({ id: call.id, type: 'function', function: { ...call.function } }));
  if (message.role === 'tool' && message.tool_call_id !== undefined) result.tool_call_id = message.tool_call_id;
  return result;
}

/** `--format sft-messages` */
export const SFT_MESSAGES_FORMAT: TrainerFormat = { format: 'sft-messages', description: DESCRIPTION, create: () => createSftMessagesAdapter() };
