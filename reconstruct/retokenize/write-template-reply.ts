import type { AssistantOutput, ReplyContext, ReplyText } from './retokenizer.js';

export interface TemplateReplyFormat {
  /** the template writes reasoning inside `<think>…</think>` (Qwen3 and the templates that copy it) */
  thinkTags: boolean;
  /** the template writes tool calls as Hermes `<tool_call>` blocks */
  toolCallTags: boolean;
  /** the end-of-turn token the model samples (`<|im_end|>` for Qwen3) */
  endToken: string | null;
}

/**
 * Writes a reply back as the text a Qwen3-style model generated: `<think>` + reasoning + `</think>`, the content,
 * then each tool call as `<tool_call>\n{"name": "NAME", "arguments": ARGS}\n</tool_call>` ("\n" between calls and
 * after content that does not end with one, as the Qwen3 template writes them), arguments as the server sent
 * them. Two cases for the reasoning: a server that keeps the text around it verbatim (vLLM: reasoning
 * "\n…\n", content "\n\n…") is copied as is; a server that strips it gets the template's own layout,
 * `<think>\n{reasoning}\n</think>\n\n{content}`. When the prompt already opens `<think>` (thinking-only templates)
 * the opening tag is not written again. Reasoning with no content, no tool call and no end of turn is a reply cut
 * inside its thinking: no `</think>`.
 *
 * @example
 * writeTemplateReply({ reasoning: '\nsum\n', content: '\n\n4', toolCalls: [], endsTurn: true },
 *   { promptText: '…<|im_start|>assistant\n' }, { thinkTags: true, toolCallTags: true, endToken: '<|im_end|>' });
 * // { text: '<think>\nsum\n</think>\n\n4', endToken: '<|im_end|>' }
 */
export function writeTemplateReply(output: AssistantOutput, context: ReplyContext, format: TemplateReplyFormat): ReplyText {
  if (output.reasoning !== null && !format.thinkTags) return { refusal: 'the reply has reasoning but the chat template writes no <think> block' };
  if (output.toolCalls.length > 0 && !format.toolCallTags)
    return { refusal: 'the reply calls tools but the chat template writes no <tool_call> blocks' };
  let text = '';
  let content = output.content ?? '';
  if (output.reasoning !== null) {
    // a reply cut short with nothing after its reasoning was cut inside it (streams report content "" then)
    const closed = output.endsTurn || content !== '' || output.toolCalls.length > 0;
    const verbatim = /^\n|\n$/.test(output.reasoning) || content.startsWith('\n');
    const opener = thinkOpener(context.promptText, verbatim);
    if (verbatim) text = opener + output.reasoning + (closed ? '</think>' : '');
    else text = `${opener}${stripNewlines(output.reasoning)}${closed ? '\n</think>\n\n' : ''}`;
    if (!verbatim) content = content.replace(/^\n+/, '');
  }
  text += content;
  output.toolCalls.forEach((call, index) => {
    text += index > 0 ? '\n' : toolCallSeparator(text, content);
    const args = call.arguments === '' ? '{}' : call.arguments;
    text += `<tool_call>\n{"name": "${call.name}", "arguments": ${args}}\n</tool_call>`;
  });
  return { text, endToken: output.endsTurn ? format.endToken : null };
}

/** Before the first call: "\n" after content that does not end with one, "\n\n" right after `</think>`. */
function toolCallSeparator(text: string, content: string): string {
  if (content !== '') return content.endsWith('\n') ? '' : '\n';
  return text.endsWith('</think>') ? '\n\n' : '';
}

/** What the model itself wrote before the reasoning: nothing the prompt already holds. */
function thinkOpener(promptText: string, verbatim: boolean): string {
  if (promptText.endsWith('<think>\n')) return '';
  if (promptText.endsWith('<think>')) return verbatim ? '' : '\n';
  return verbatim ? '<think>' : '<think>\n';
}

function stripNewlines(text: string): string {
  return text.replace(/^\n+|\n+$/g, '');
}
