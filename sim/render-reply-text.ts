import { pythonJsonDumps } from '../reconstruct/parsers/python-json-dumps.js';

/** A reply before it is written out as model text: from a script entry or the seeded policy. */
export interface SimReply {
  /** the exact completion text; when set, the structured fields are ignored */
  text?: string;
  reasoning?: string;
  content?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> | string }>;
  /** "length": the model did not finish its turn (no end-of-turn token) */
  finishReason?: 'stop' | 'length';
}

/**
 * Writes a reply as Qwen3 generates it, so that the chat template renders the same text when the reply
 * comes back as history: `<think>\n{reasoning}\n</think>\n\n` (only when thinking is on and reasoning is
 * given), the content, then each tool call as `<tool_call>\n{"name": "…", "arguments": {…}}\n</tool_call>`,
 * separated by "\n" exactly where the Qwen3 template puts one (before a call that follows content or
 * another call). Arguments print like the template's `tojson`.
 *
 * @example
 * renderReplyText({ content: 'Checking.', toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { thinking: false });
 * // 'Checking.\n<tool_call>\n{"name": "ls", "arguments": {"path": "."}}\n</tool_call>'
 */
export function renderReplyText(reply: SimReply, options: { thinking: boolean }): string {
  if (reply.text !== undefined) return reply.text;
  let text = '';
  if (options.thinking && reply.reasoning !== undefined) text += `<think>\n${reply.reasoning}\n</think>\n\n`;
  const content = reply.content ?? '';
  text += content;
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    if (index > 0 || content !== '') text += '\n';
    const argumentsText = typeof call.arguments === 'string' ? call.arguments : pythonJsonDumps(call.arguments);
    text += `<tool_call>\n{"name": "${call.name}", "arguments": ${argumentsText}}\n</tool_call>`;
  }
  return text;
}
