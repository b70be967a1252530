import type { ExportSample } from '../export-sample.js';
import type { AdapterSkip, ColumnSpec, ExportRow, TrainerAdapter } from '../trainer-adapter.js';
import type { TrainerFormat } from '../trainer-format.js';
import { toTrlMessages } from './to-trl-messages.js';

export type TrlSftShape = 'messages' | 'prompt-completion' | 'tokens';

const TRL_SFT_SHAPES: readonly TrlSftShape[] = ['messages', 'prompt-completion', 'tokens'];

const TOOLS: ColumnSpec = {
  name: 'tools',
  type: 'json',
  description: 'the tool definitions the call offered, as sent (OpenAI function-tool form); [] when none',
};
const TEMPLATE_OPTIONS: ColumnSpec = {
  name: 'chat_template_kwargs',
  type: 'json',
  description:
    'the chat_template_kwargs the call was rendered with (e.g. {"enable_thinking": false}); {} when none. SFTTrainer passes them to apply_chat_template',
};

// SFTTrainer's dataset types (shared/reference/trainer-formats.md 4a, 4b): conversational language modeling,
// conversational prompt-completion (completion-only loss by default), and pre-tokenized rows.
const COLUMNS: Record<TrlSftShape, readonly ColumnSpec[]> = {
  messages: [
    {
      name: 'messages',
      type: 'json',
      description: "the last call's messages, then its reply as the final assistant message (arguments as objects, reasoning as reasoning_content)",
    },
    TOOLS,
    TEMPLATE_OPTIONS,
  ],
  'prompt-completion': [
    { name: 'prompt', type: 'json', description: "the last call's messages (everything before its reply)" },
    { name: 'completion', type: 'json', description: "[the call's reply]: one assistant message" },
    TOOLS,
    TEMPLATE_OPTIONS,
  ],
  tokens: [
    { name: 'input_ids', type: 'int32[]', description: 'the whole sequence, as the backend saw and sampled it' },
    {
      name: 'completion_mask',
      type: 'uint8[]',
      description: '1 = sampled by the model (trained), 0 = context; SFTConfig(completion_only_loss=True) applies it',
    },
  ],
};

const DESCRIPTION =
  'TRL SFTTrainer rows: conversational messages (messages, default), conversational prompt-completion (prompt-completion), or pre-tokenized input_ids + completion_mask (tokens)';

/**
 * TRL SFT rows for one shape. The text shapes read the sample's conversation (the last call's messages and reply);
 * `tokens` is the sample itself, token for token.
 *
 * @example
 * createTrlSftAdapter('messages').toRow(exportSample);
 * // { messages: [{ role: 'user', content: 'What is 17 + 25?' }, { role: 'assistant', content: '', tool_calls: [...] }, ...], tools: [...], chat_template_kwargs: {} }
 */
export function createTrlSftAdapter(shape: TrlSftShape = 'messages'): TrainerAdapter {
  return {
    format: 'trl-sft',
    shape,
    description: DESCRIPTION,
    needs: { reward: false, advantage: false, conversation: shape !== 'tokens' },
    columns: COLUMNS[shape],
    toRow: shape === 'tokens' ? toTokensRow : shape === 'messages' ? toMessagesRow : toPromptCompletionRow,
  };
}

function toMessagesRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { conversation } = exported;
  if (conversation === undefined) return { skip: 'no_conversation' };
  return { messages: toTrlMessages(conversation.messages), tools: conversation.tools, chat_template_kwargs: conversation.templateOptions };
}

function toPromptCompletionRow(exported: ExportSample): ExportRow | AdapterSkip {
  const { conversation } = exported;
  if (conversation === undefined) return { skip: 'no_conversation' };
  // the conversation ends with the call's reply (export-sample.ts): that message is the completion
  const messages = toTrlMessages(conversation.messages);
  return {
    prompt: messages.slice(0, -1),
    completion: messages.slice(-1),
    tools: conversation.tools,
    chat_template_kwargs: conversation.templateOptions,
  };
}

function toTokensRow(exported: ExportSample): ExportRow {
  return { input_ids: exported.sample.tokens.slice(), completion_mask: exported.sample.lossMask.slice() };
}

/** `--format trl-sft [--shape messages|prompt-completion|tokens]` */
export const TRL_SFT_FORMAT: TrainerFormat = {
  format: 'trl-sft',
  shapes: TRL_SFT_SHAPES,
  defaultShape: 'messages',
  description: DESCRIPTION,
  create: (shape) => createTrlSftAdapter(shape as TrlSftShape),
};
