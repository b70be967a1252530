import type { AssistantOutput, ReplyText } from '../../reply/assistant-output.js';

/**
 * Writes a reply as gpt-oss generates it after the prompt's `<|start|>assistant` (openai/harmony docs/format.md,
 * "Example output", "Receiving tool calls", "Preambles"): reasoning as `<|channel|>analysis<|message|>…<|end|>`,
 * then each further message opened by `<|start|>assistant`; a tool call as
 * `<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{args}` ending with `<|call|>`, content
 * beside a tool call as a `commentary` preamble, otherwise content as `<|channel|>final<|message|>…` ending with
 * `<|return|>`. A reply cut short (finish `length`) gets no closing token. Refused: more than one tool call
 * (the model stops at the first `<|call|>`) and a turn that "ended" inside its reasoning.
 *
 * @example
 * writeHarmonyReply({ reasoning: 'Easy.', content: '4.', toolCalls: [], endsTurn: true });
 * // { text: '<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4.', endToken: '<|return|>' }
 */
export function writeHarmonyReply(output: AssistantOutput): ReplyText {
  if (output.toolCalls.length > 1)
    return { refusal: 'a Harmony completion ends at its first <|call|>: several tool calls cannot come from one completion' };
  const messages: string[] = [];
  if (output.reasoning !== null && output.reasoning !== '') messages.push(`<|channel|>analysis<|message|>${output.reasoning}`);
  const call = output.toolCalls[0];
  const content = output.content ?? '';
  if (call !== undefined) {
    if (content !== '') messages.push(`<|channel|>commentary<|message|>${content}`);
    messages.push(`<|channel|>commentary to=functions.${call.name} <|constrain|>json<|message|>${call.arguments}`);
  } else if (output.content !== null || (output.endsTurn && messages.length === 0)) {
    messages.push(`<|channel|>final<|message|>${content}`);
  } else if (output.endsTurn) {
    return { refusal: 'the turn ended inside the analysis channel: which token ended it is unknown' };
  }
  const text = messages.join('<|end|><|start|>assistant');
  if (!output.endsTurn) return { text, endToken: null };
  return { text, endToken: call !== undefined ? '<|call|>' : '<|return|>' };
}
