import { contentLayout, type RenderedToolCall, type ReplyLayout, type SimReply } from './render-reply-text.js';

/**
 * Writes a reply as gpt-oss generates it after the prompt's `<|start|>assistant`, in the Harmony format (the simulator's
 * own writer, from openai/harmony docs/format.md, "Example output" and "Receiving tool calls"): reasoning as
 * `<|channel|>analysis<|message|>…<|end|>`, each later message opened by `<|start|>assistant`; one tool call as
 * `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}` (compact JSON), content beside it as a
 * `commentary` preamble; otherwise the content as `<|channel|>final<|message|>…`. The model stops at the first
 * `<|call|>`, so a reply with several calls writes only the first. The caller adds the closing token: `<|call|>`
 * after a call (`endsWithCall`), else `<|return|>` (the tokenizer's EOS).
 *
 * @example
 * renderGptOssReply({ reasoning: 'Easy.', content: '4.' }).text;
 * // '<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4.'
 */
export function renderGptOssReply(reply: SimReply): ReplyLayout & { endsWithCall: boolean } {
  if (reply.text !== undefined) return { ...contentLayout(reply.text), endsWithCall: false };
  const messages: string[] = [];
  if (reply.reasoning !== undefined && reply.reasoning !== '') messages.push(`<|channel|>analysis<|message|>${reply.reasoning}`);
  const call = reply.toolCalls?.[0];
  const content = reply.content ?? '';
  if (call === undefined) {
    messages.push(`<|channel|>final<|message|>`);
    const text = join(messages) + content;
    return { text, think: null, contentStart: text.length - content.length, toolCalls: [], endsWithCall: false };
  }
  if (content !== '') messages.push(`<|channel|>commentary<|message|>${content}`);
  const before = join([...messages, '']);
  const header = `<|channel|>commentary to=functions.${call.name} <|constrain|>json<|message|>`;
  const argumentsText = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
  const text = before + header + argumentsText;
  const start = before.length;
  const argumentsStart = start + header.length;
  const rendered: RenderedToolCall = {
    name: call.name,
    argumentsText,
    start,
    nameEnd: argumentsStart,
    argumentsStart,
    argumentsEnd: text.length,
    jsonEnd: text.length,
    end: text.length,
  };
  return {
    text,
    think: null,
    contentStart: content === '' ? start : start - content.length - '<|end|><|start|>assistant'.length,
    toolCalls: [rendered],
    endsWithCall: true,
  };
}

function join(messages: readonly string[]): string {
  return messages.join('<|end|><|start|>assistant');
}
