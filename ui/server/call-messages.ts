import { isRecord } from '../../core/json/is-record.js';
import type { CallRow, Store } from '../../store/index.js';
import type { ConversationMessage } from '../viewer-api.js';
import { readRequestMessages } from './call-view/read-request-messages.js';
import { readResponseMessage } from './call-view/read-response-message.js';
import type { ReadableMessage } from './call-view/readable-message.js';
import { toConversationMessages } from './read-conversation.js';

/**
 * One call's own messages: its request as the harness sent it, then its reply (the backend's answer; for a stream,
 * the body assembled from it), all attributed to the call.
 *
 * @example callMessages(store, call).at(-1)?.fromResponse // true when the call got a reply
 */
export function callMessages(store: Store, call: CallRow): ConversationMessage[] {
  const bodies = store.getCallBodies(call.id, { lazy: true });
  const request = readRequestMessages(call.frontDoor, bodies?.requestBody);
  const reply = readResponseMessage(bodies?.responseBody);
  return [
    ...request.flatMap((message) => toConversationMessages(message, { callId: call.id, fromResponse: false })),
    ...(reply === null ? [] : toConversationMessages(reply, { callId: call.id, fromResponse: true })),
  ];
}

/**
 * The conversation of the session's newest call as its harness sent it, plus that call's reply: each message names
 * the first call whose request carried it (the calls' requests are compared with the newest one's from the start;
 * one read of each call's request body).
 *
 * @example sessionConversation(store, store.listCalls('run-42'))
 */
export function sessionConversation(store: Store, calls: readonly CallRow[]): ConversationMessage[] {
  const newest = calls.at(-1);
  if (newest === undefined) return [];
  const bodies = store.getCallBodies(newest.id, { lazy: true });
  const messages = readRequestMessages(newest.frontDoor, bodies?.requestBody);
  const keys = messages.map(messageKey);
  const firstCarrier = new Array<string>(messages.length).fill(newest.id);
  let attributed = 0;
  for (const call of calls.slice(0, -1)) {
    if (attributed === messages.length) break;
    const earlier = readRequestMessages(call.frontDoor, store.getCallBodies(call.id, { lazy: true })?.requestBody);
    let shared = 0;
    while (shared < earlier.length && shared < keys.length && messageKey(earlier[shared] as ReadableMessage) === keys[shared]) shared += 1;
    for (; attributed < shared; attributed++) firstCarrier[attributed] = call.id;
  }
  const reply = readResponseMessage(bodies?.responseBody);
  return [
    ...messages.flatMap((message, index) => toConversationMessages(message, { callId: firstCarrier[index] ?? newest.id, fromResponse: false })),
    ...(reply === null ? [] : toConversationMessages(reply, { callId: newest.id, fromResponse: true })),
  ];
}

function messageKey(message: ReadableMessage): string {
  return JSON.stringify([
    message.role,
    message.parts.map((part) => (isRecord(part) ? [part.kind, part.text, part.name ?? null, part.id ?? null] : part)),
  ]);
}
