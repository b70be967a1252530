import { isFunctionCall, readHarmonyMessages, type HarmonyOutputMessage } from './read-harmony-messages.js';

/**
 * Splits a gpt-oss completion (Harmony text, special tokens kept) as vLLM's `parse_chat_output`
 * (vllm/entrypoints/openai/parser/harmony_utils.py) does: the `analysis` messages are the reasoning, joined with "\n";
 * `final` messages and `commentary` preambles (no recipient) are the content, joined with "\n"; empty is null.
 * A function call (`to=functions.NAME`, any channel) is left in the content as its Harmony text
 * (`<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}`), after the shown text, for the `openai`
 * tool-call parser (parse-harmony-tool-calls.ts) to read; vLLM hands its tool parser the token ids instead. Messages to
 * other recipients (built-in `browser.*`, `python`) are dropped, as vLLM's whole parse drops them.
 *
 * @example
 * splitHarmonyReasoning('<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>4.');
 * // { reasoning: 'Easy.', content: '4.' }
 */
export function splitHarmonyReasoning(text: string): { reasoning: string | null; content: string | null } {
  const messages = readHarmonyMessages(text);
  const reasoning = messages.filter((message) => message.channel === 'analysis' && message.recipient === null).map((message) => message.content);
  const shown = messages.filter(isShown).map((message) => message.content);
  const content = shown.join('\n') + messages.filter(isFunctionCall).map(harmonyCallText).join('');
  return { reasoning: reasoning.join('\n') || null, content: content || null };
}

/**
 * The streamed split, vLLM's `extract_harmony_streaming_delta` (vllm/entrypoints/openai/chat_completion/harmony
 * streaming, the channel/recipient branch): `analysis` text goes out as reasoning, `final` and preamble text as content,
 * each as it arrives; a function call's header goes out as content once `<|message|>` closes it, then its arguments,
 * for the tool-call stream to read.
 *
 * @example const stream = createHarmonyReasoningStream(); stream.push('<|channel|>analysis<|message|>Hm'); // { reasoning: 'Hm' }
 */
export function createHarmonyReasoningStream(): { push(deltaText: string): { reasoning?: string; content?: string } | null } {
  let text = '';
  const sent: number[] = [];
  return {
    push(deltaText) {
      text += deltaText;
      let reasoning = '';
      let content = '';
      readHarmonyMessages(text).forEach((message, index) => {
        const call = isFunctionCall(message);
        if (!call && !isShown(message) && !(message.channel === 'analysis' && message.recipient === null)) return;
        if (call && sent[index] === undefined) content += harmonyCallText({ ...message, content: '', ended: false });
        const from = sent[index] ?? 0;
        const piece = message.content.slice(from);
        sent[index] = message.content.length;
        if (message.channel === 'analysis' && !call) reasoning += piece;
        else content += piece;
      });
      const delta: { reasoning?: string; content?: string } = {};
      if (reasoning !== '') delta.reasoning = reasoning;
      if (content !== '') delta.content = content;
      return Object.keys(delta).length === 0 ? null : delta;
    },
  };
}

function isShown(message: HarmonyOutputMessage): boolean {
  return message.recipient === null && (message.channel === 'final' || message.channel === 'commentary');
}

/** A function call as the Harmony text the tool-call parser reads back. */
function harmonyCallText(message: HarmonyOutputMessage): string {
  const type = message.contentType === null ? '' : ` ${message.contentType}`;
  return `<|channel|>${message.channel ?? 'commentary'} to=${message.recipient}${type}<|message|>${message.content}${message.ended ? '<|call|>' : ''}`;
}
