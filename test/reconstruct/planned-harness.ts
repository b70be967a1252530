import type { HistoryDrift, PlannedStep, ReplyDrift } from './session-plan.js';

/** An OpenAI chat message as the simulated harness sends it. */
export type ChatMessage = Record<string, unknown> & { role: string };

/**
 * Edits the history before a call as a harness would: `compaction` replaces it with a summary, `truncate-history`
 * drops the oldest assistant turn (and the tool results or user message after it). Returns false when the
 * history is too short for the edit (nothing changed).
 */
export function applyHistoryDrift(messages: ChatMessage[], drift: HistoryDrift, counter: number): boolean {
  if (drift === 'compaction') {
    messages.splice(1, messages.length - 1, { role: 'user', content: `Summary ${counter} of the work so far: notes tidied.` });
    return true;
  }
  if (drift !== 'truncate-history') return false;
  const first = messages.findIndex((message) => message.role === 'assistant');
  const second = messages.findIndex((message, index) => index > first && message.role === 'assistant');
  if (first === -1 || second === -1) return false;
  messages.splice(first, second - first);
  return true;
}

/**
 * The planned reply drift, or 'none' where it cannot be injected alone. Qwen3 drops the reasoning of every
 * assistant turn before the last user message, so when the next message is a user message and reasoning was sent
 * since the last one, the next call breaks as a template re-render anyway: drifts that would be hidden behind that
 * break are not injected there.
 */
export function effectiveReplyDrift(step: PlannedStep, messages: readonly ChatMessage[]): ReplyDrift {
  const drift = step.replyDrift;
  const reply = step.reply;
  const reasoningSinceUser = reasoningSinceLastUser(messages);
  const nextIsUser = reply.toolCalls.length === 0;
  const naturalDrop = nextIsUser && (reasoningSinceUser || (reply.reasoning !== undefined && drift !== 'strip-think'));
  switch (drift) {
    case 'strip-think':
      return reply.reasoning === undefined ? 'none' : drift;
    case 'json-reformat':
      return reply.toolCalls.length > 0 ? drift : 'none';
    case 'retokenize-reply':
    case 'flag':
      return naturalDrop ? 'none' : drift;
    case 'length-cut':
    case 'length-cut-edited':
      return reasoningSinceUser ? 'none' : drift;
    default:
      return drift;
  }
}

function reasoningSinceLastUser(messages: readonly ChatMessage[]): boolean {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as ChatMessage;
    if (message.role === 'user') return false;
    if (message.role === 'assistant' && typeof message.reasoning_content === 'string' && message.reasoning_content !== '') return true;
  }
  return false;
}
