/** Messages as the harness saw them: roles, reasoning folded, tool calls with pretty JSON, tool results, errors marked. */
import type { ConversationMessage } from '../../viewer-api.js';
import { prettyJson } from '../logic/fold-text.js';
import { FoldedText } from './folded-text.js';

export interface ConversationProps {
  messages: readonly ConversationMessage[];
  /** each call's seq, to say which call first carried a message */
  callSeqs?: ReadonlyMap<string, number>;
  testId?: string;
}

export function Conversation({ messages, callSeqs, testId = 'conversation' }: ConversationProps) {
  if (messages.length === 0) return <p class="tt-muted">No messages.</p>;
  return (
    <ol class="tt-conversation" data-testid={testId}>
      {messages.map((message, index) => (
        <li
          key={index}
          class={`tt-message tt-role-${message.role}${message.isError ? ' tt-message-error' : ''}${message.fromResponse ? ' tt-message-reply' : ''}`}
          data-testid="message"
          data-role={message.role}
          data-call-id={message.callId}
        >
          <div class="tt-message-head">
            <span class="tt-role">{message.role}</span>
            {message.fromResponse ? <span class="tt-tag">reply</span> : null}
            {callSeqs?.has(message.callId) ? (
              <span class="tt-muted tt-small" title={message.callId}>
                {message.fromResponse ? 'from' : 'sent in'} call #{callSeqs.get(message.callId)}
              </span>
            ) : null}
            {message.toolCallId !== null ? <span class="tt-tag">answers {message.toolCallId}</span> : null}
            {message.isError ? <span class="tt-tag tt-tag-error">error</span> : null}
          </div>
          {message.reasoning ? (
            <details class="tt-reasoning">
              <summary>reasoning ({message.reasoning.length.toLocaleString('en-US')} chars)</summary>
              <FoldedText text={message.reasoning} />
            </details>
          ) : null}
          {message.text !== '' ? <FoldedText text={message.text} /> : null}
          {message.toolCalls.map((call, callIndex) => (
            <div key={callIndex} class="tt-tool-call" data-testid="tool-call">
              <div class="tt-tool-call-head">
                → <strong>{call.name}</strong>
                {call.id !== null ? <span class="tt-muted"> {call.id}</span> : null}
              </div>
              <FoldedText text={prettyJson(call.arguments)} class="tt-json" />
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}
