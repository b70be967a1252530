/** One Harmony message of a completion, read from its text (special tokens kept). */
export interface HarmonyOutputMessage {
  /** `analysis`, `commentary`, `final`, or null when the header names none */
  channel: string | null;
  /** `functions.get_weather` from ` to=functions.get_weather`, or null */
  recipient: string | null;
  /** `<|constrain|>json` or `json`, or null */
  contentType: string | null;
  content: string;
  /** false for the last message when the text stops before its `<|end|>`, `<|call|>` or `<|return|>` */
  ended: boolean;
}

const MESSAGE = '<|message|>';
const ENDS = ['<|end|>', '<|call|>', '<|return|>'] as const;

/**
 * The messages of a completion generated after `<|start|>assistant` (openai/harmony docs/format.md): the first header
 * starts at once (`<|channel|>analysis<|message|>…`), later ones after `<|start|>assistant`; each message ends at
 * `<|end|>`, `<|call|>` or `<|return|>`, and the last may be unfinished (vLLM leaves the stop token out of the text).
 * A header not yet closed by `<|message|>` is no message yet (openai_harmony's StreamableParser is still in its header).
 *
 * @example
 * readHarmonyMessages('<|channel|>final<|message|>Hi')[0]; // { channel: 'final', recipient: null, contentType: null, content: 'Hi', ended: false }
 */
export function readHarmonyMessages(text: string): HarmonyOutputMessage[] {
  const messages: HarmonyOutputMessage[] = [];
  let at = 0;
  while (at < text.length) {
    const bodyAt = text.indexOf(MESSAGE, at);
    if (bodyAt === -1) break;
    const header = readHeader(text.slice(at, bodyAt));
    const contentAt = bodyAt + MESSAGE.length;
    const end = nextEnd(text, contentAt);
    if (end === null) {
      messages.push({ ...header, content: text.slice(contentAt), ended: false });
      break;
    }
    messages.push({ ...header, content: text.slice(contentAt, end.at), ended: true });
    at = end.at + end.token.length;
  }
  return messages;
}

/** `[<|start|>]assistant[ to=R]<|channel|>C[ to=R][ <|constrain|>json | json]`: the recipient may sit before or after the channel. */
function readHeader(header: string): Pick<HarmonyOutputMessage, 'channel' | 'recipient' | 'contentType'> {
  const rest = header.startsWith('<|start|>') ? header.slice('<|start|>'.length) : header;
  const recipient = /(?:^|\s)to=([^\s<]+)/.exec(rest)?.[1] ?? null;
  const channelAt = rest.indexOf('<|channel|>');
  let channel: string | null = null;
  let contentType: string | null = null;
  if (channelAt !== -1) {
    const after = rest.slice(channelAt + '<|channel|>'.length).replace(/\s*to=[^\s<]+/, '');
    channel = /^[^\s<]+/.exec(after)?.[0] ?? null;
    const type = after.slice(channel?.length ?? 0).trim();
    contentType = type === '' ? null : type;
  }
  return { channel, recipient, contentType };
}

function nextEnd(text: string, from: number): { at: number; token: string } | null {
  let found: { at: number; token: string } | null = null;
  for (const token of ENDS) {
    const at = text.indexOf(token, from);
    if (at !== -1 && (found === null || at < found.at)) found = { at, token };
  }
  return found;
}

/** A message addressed to a function tool (`to=functions.NAME`): vLLM's tool call, whatever its channel. */
export function isFunctionCall(message: HarmonyOutputMessage): boolean {
  return message.recipient?.startsWith('functions.') === true;
}
