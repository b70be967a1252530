import type { SimReply } from './render-reply-text.js';
import { VllmError } from './vllm-error.js';

// the tags vLLM's Qwen3 reasoning parser and Hermes tool parser act on
const MARKUP = ['<think>', '</think>', '<tool_call>', '</tool_call>'];

/**
 * The simulator answers a chat reply from its structure, with no output parser: a raw `text` is all content, and
 * `reasoning`, `content` and `toolCalls` are reported as given. Text holding the tags vLLM's parsers act on would be
 * answered differently by vLLM (it would parse them), so such a reply is refused with a 500 that says what to write
 * instead. Completions are not checked: vLLM parses nothing there.
 *
 * @example
 * checkChatReply({ text: '<think>\nhm\n</think>\n\nHi' }, 0); // throws: use `reasoning` and `content`
 */
export function checkChatReply(reply: SimReply | null, scriptEntry: number | null): void {
  if (reply === null) return;
  const fields: Array<[string, string | undefined]> = [
    ['text', reply.text],
    ['reasoning', reply.reasoning],
    ['content', reply.content],
  ];
  for (const [field, value] of fields) {
    const tag = value === undefined ? undefined : MARKUP.find((markup) => value.includes(markup));
    if (tag === undefined) continue;
    const entry = scriptEntry === null ? 'The reply' : `Script entry ${scriptEntry}`;
    throw new VllmError(
      500,
      `${entry} writes ${tag} in \`${field}\`: the simulator does not parse model output, so give the reply as \`reasoning\`, \`content\` and \`toolCalls\` (a raw \`text\` is answered as content only).`,
    );
  }
}
