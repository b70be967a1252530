import type { Store } from '../../store/index.js';
import type { DriftKind } from '../../reconstruct/sample.js';
import type { HfTokenizer } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import { renderReplyText } from '../../sim/render-reply-text.js';
import { applyHistoryDrift, effectiveReplyDrift, type ChatMessage } from './planned-harness.js';
import { recordChatCall, renderPrompt, splitOneToken } from './record-chat-call.js';
import type { PlannedReply, PlannedStep, ReplyDrift, SessionPlan } from './session-plan.js';

const IM_END = 151645;

/** What the reconstruction of one recorded call must show, from the recorder's own knowledge of the session. */
export interface Expectation {
  callId: string;
  /** first: opens the session's first chain; join: follows `previousCallId` in its sample; break: opens a sample */
  outcome: 'first' | 'join' | 'break';
  previousCallId: string | null;
  /** accepted kinds of the break's diagnostic */
  kinds?: DriftKind[];
  /** when known exactly: the call the break is told against, and where the ids part */
  againstCallId?: string;
  position?: number;
}

export interface RecordedSession {
  expectations: Expectation[];
  /** ok calls with trustworthy ids: each must be trained exactly once */
  trainable: string[];
  aborted: string[];
  flagged: string[];
}

interface AgentState {
  system: string;
  messages: ChatMessage[];
  previous: { id: string; sequence: Int32Array } | null;
  /** the drift injected for the agent's next call, and whether its `against` is exactly the previous call */
  pending: { kind: DriftKind; exact: boolean; kinds?: DriftKind[] } | null;
  /**
   * the agent's history was edited before: the chain it left behind may share a longer prefix with a later prompt
   * than its own previous call does (two replies starting with the same tokens), and the diagnostic then names that
   * older chain, rightly, as history-edited
   */
  edited?: boolean;
  /** the agent's previous call was flagged: it is compared with, never merged into */
  previousFlagged?: boolean;
  /**
   * some call of the agent was cut (max tokens) or flagged: once its history is edited, a later prompt may share
   * more with that call (two replies starting alike) than with its own previous call, and is then rightly told
   * against it as carrying on a cut completion
   */
  cutBefore?: boolean;
}

/**
 * Plays a planned session as a harness and a Qwen3 model would, through the store API: every prompt is the real
 * Qwen3 template rendered and tokenized, every completion the reply as Qwen3 writes it, tokenized. Drift is injected
 * as planned, and each call's expected reconstruction is written down from what the recorder knows it did.
 *
 * @example
 * const recorded = recordPlannedSession(store, tokenizer, 'run-1', plan);
 */
export function recordPlannedSession(store: Store, tokenizer: HfTokenizer, sessionId: string, plan: SessionPlan): RecordedSession {
  const recorded: RecordedSession = { expectations: [], trainable: [], aborted: [], flagged: [] };
  const agents: AgentState[] = Array.from({ length: plan.agents }, (_, index) => ({
    system: index === 0 ? 'You are a coding agent working in a repository.' : `You are sub-agent number ${index}; you only read files.`,
    messages: [],
    previous: null,
    pending: null,
  }));
  let counter = 0;
  let anyRecorded = false;
  for (const step of plan.steps) {
    const agent = agents[step.agent] as AgentState;
    if (agent.messages.length === 0)
      agent.messages = [
        { role: 'system', content: agent.system },
        { role: 'user', content: `Task ${step.agent}: tidy the notes.` },
      ];
    if (agent.previous !== null && applyHistoryDrift(agent.messages, step.historyDrift, counter)) {
      agent.pending = { kind: 'history-edited', exact: false };
      agent.edited = true;
    }
    let drift = effectiveReplyDrift(step, agent.messages);
    const reply =
      drift === 'length-cut' || drift === 'length-cut-edited'
        ? { content: `${step.reply.content ?? 'Writing the notes now.'} And more words follow here.`, toolCalls: [] }
        : step.reply;
    const prompt = renderPrompt(tokenizer, agent.messages);
    const context = { store, sessionId, messages: agent.messages, prompt, policyVersion: step.policyVersion, seed: counter++ };
    let completion: Int32Array = Int32Array.from([...tokenizer.encode(replyText(reply, drift)), IM_END]);
    if (drift === 'retokenize-reply') {
      const split = splitOneToken(tokenizer, completion);
      if (split === null) drift = 'none';
      else completion = split;
    }
    if (drift === 'abort-retry') {
      recorded.aborted.push(
        recordChatCall(context, {
          completion: completion.subarray(0, Math.max(1, completion.length >> 2)),
          reply,
          status: 'aborted',
          finishReason: null,
        }),
      );
      anyRecorded = true;
    }
    if (drift === 'length-cut' || drift === 'length-cut-edited') completion = completion.subarray(0, Math.max(2, completion.length >> 1));
    const finishReason = drift.startsWith('length-cut') ? 'length' : 'stop';
    if (finishReason === 'length') agent.cutBefore = true;
    const partialText = finishReason === 'length' ? tokenizer.decode(Array.from(completion)) : undefined;
    const sentReply = partialText === undefined ? reply : { content: partialText, toolCalls: [] };
    if (drift === 'flag') {
      const kept = completion.filter((_, index) => index !== 1 && index !== completion.length - 2);
      const id = recordChatCall(context, { completion: kept, reply, flags: ['completion_ids_mismatch_usage'] });
      recorded.flagged.push(id);
      anyRecorded = true;
      settle(agent, id, prompt, kept, { kind: 'truncated-completion', exact: true });
      agent.previousFlagged = true;
      agent.cutBefore = true;
    } else {
      const id = recordChatCall(context, { completion, reply: sentReply, finishReason, compactArguments: drift === 'json-reformat' });
      recorded.expectations.push(expectationFor(agent, id, prompt, anyRecorded));
      recorded.trainable.push(id);
      anyRecorded = true;
      settle(agent, id, prompt, completion, pendingAfter(drift));
      if (drift === 'retry') {
        const again = { ...reply, content: reply.content === undefined ? 'Once more.' : `${reply.content} Once more.` };
        const againCompletion = Int32Array.from([...tokenizer.encode(replyText(again, 'none')), IM_END]);
        const againId = recordChatCall({ ...context, seed: counter++ }, { completion: againCompletion, reply: again });
        recorded.expectations.push({
          callId: againId,
          outcome: 'break',
          previousCallId: id,
          kinds: ['parallel-branch'],
          againstCallId: id,
          position: prompt.length,
        });
        recorded.trainable.push(againId);
        settle(agent, againId, prompt, againCompletion, null);
        appendTurn(agent.messages, again, drift, counter++);
        continue;
      }
    }
    appendTurn(agent.messages, drift === 'length-cut-edited' ? { content: `[cut] ${partialText}`, toolCalls: [] } : sentReply, drift, counter++);
  }
  return recorded;
}

function replyText(reply: PlannedReply, drift: ReplyDrift): string {
  const toolCalls = reply.toolCalls.map((call) => ({
    name: call.name,
    arguments: drift === 'json-reformat' ? JSON.stringify(call.arguments) : call.arguments,
  }));
  return renderReplyText({ ...reply, toolCalls }, { thinking: true });
}

function pendingAfter(drift: ReplyDrift): AgentState['pending'] {
  if (drift === 'strip-think' || drift === 'json-reformat') return { kind: 'template-rerender', exact: true };
  if (drift === 'retokenize-reply') return { kind: 'retokenized', exact: true };
  if (drift === 'length-cut-edited') return { kind: 'truncated-completion', exact: true };
  // the partial text usually comes back as the same ids (the chain goes on); when not, either kind names it
  if (drift === 'length-cut') return { kind: 'truncated-completion', exact: true, kinds: ['truncated-completion', 'retokenized'] };
  return null;
}

function settle(agent: AgentState, id: string, prompt: Int32Array, completion: Int32Array, pending: AgentState['pending']): void {
  const sequence = new Int32Array(prompt.length + completion.length);
  sequence.set(prompt);
  sequence.set(completion, prompt.length);
  agent.previous = { id, sequence };
  agent.pending = pending;
  agent.previousFlagged = false;
}

function expectationFor(agent: AgentState, callId: string, prompt: Int32Array, anyRecorded: boolean): Expectation {
  const previous = agent.previous;
  if (previous === null)
    return anyRecorded
      ? { callId, outcome: 'break', previousCallId: null, kinds: ['parallel-branch'] }
      : { callId, outcome: 'first', previousCallId: null };
  let shared = 0;
  while (shared < prompt.length && shared < previous.sequence.length && prompt[shared] === previous.sequence[shared]) shared++;
  const exactly = { againstCallId: previous.id, position: shared };
  if (shared === previous.sequence.length && (agent.pending === null || agent.pending.kinds !== undefined))
    return { callId, outcome: 'join', previousCallId: previous.id };
  if (agent.pending === null && agent.edited === true)
    return {
      callId,
      outcome: 'break',
      previousCallId: previous.id,
      kinds: ['template-rerender', 'history-edited', ...(agent.cutBefore === true ? ['truncated-completion' as const] : [])],
    };
  if (agent.pending === null) return { callId, outcome: 'break', previousCallId: previous.id, kinds: ['template-rerender'], ...exactly };
  const kinds = [...(agent.pending.kinds ?? [agent.pending.kind])];
  // After a flagged call an edited history no longer goes into that call's reply, so the break is told against the
  // chains (another agent's when this one has none: a parallel branch), as docs/reconstruct.md says, not the flagged call.
  if (agent.pending.kind === 'history-edited' && agent.previousFlagged === true) kinds.push('parallel-branch');
  if (agent.pending.kind === 'history-edited' && agent.cutBefore === true) kinds.push('truncated-completion');
  return { callId, outcome: 'break', previousCallId: previous.id, kinds, ...(agent.pending.exact ? exactly : {}) };
}

/** The harness appends the reply (reasoning sent back unless stripped), then tool results or a new user message. */
function appendTurn(messages: ChatMessage[], reply: PlannedReply, drift: ReplyDrift, counter: number): void {
  const toolCalls = reply.toolCalls.map((call, index) => ({
    id: `call_${counter}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: drift === 'json-reformat' ? JSON.stringify(call.arguments) : JSON.stringify(call.arguments, null, 1) },
  }));
  const assistant: ChatMessage = { role: 'assistant', content: reply.content ?? (toolCalls.length > 0 ? null : '') };
  if (reply.reasoning !== undefined && drift !== 'strip-think') assistant.reasoning_content = reply.reasoning;
  if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
  messages.push(assistant);
  for (const call of toolCalls) messages.push({ role: 'tool', tool_call_id: call.id, content: `Result ${counter} of ${call.function.name}: done.` });
  if (toolCalls.length === 0) messages.push({ role: 'user', content: `Thanks (${counter}). Please continue.` });
}

export type { PlannedStep };
