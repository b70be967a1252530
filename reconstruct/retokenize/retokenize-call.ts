import type { CallBodies, CallRow } from '../../store/types.js';
import { readAssistantOutput } from './read-assistant-output.js';
import { readCallFinish } from './read-call-finish.js';
import type { RenderChatOptions, Retokenizer } from './retokenizer.js';
import { isRecord } from '../../core/json/is-record.js';

/** Token ids rebuilt from a call's stored text. They carry no logprobs: the backend reported none. */
export interface RetokenizedCall {
  promptTokenIds: Int32Array;
  completionTokenIds: Int32Array;
  source: 'retokenized';
  /** which tokenizer made them, for the sample's provenance */
  tokenizer: { name: string; hash: string };
}

export type RetokenizeRefusalReason =
  /** the call is `in_progress` or `incomplete` */
  | 'call-not-finished'
  /** the backend request is neither a chat (`messages`) nor a completions (`prompt`) body */
  | 'unknown-request'
  /** the response body holds no first choice with a message or text */
  | 'no-response'
  /** the tokenizer has no chat format (plain cl100k_base/o200k_base, or no chat template) */
  | 'no-chat-format'
  /** the template or the Harmony renderer failed on these messages */
  | 'render-failed'
  /** a completions body with several prompts */
  | 'multiple-prompts'
  /** the reply holds something the tokenizer's format cannot write (tool calls without `<tool_call>`, ...) */
  | 'unsupported-reply'
  /** see read-call-finish.ts */
  | 'stop-string'
  | 'stop-unknown'
  | 'finish-reason'
  /** the turn ended but no single end-of-turn token is known */
  | 'end-token';

export interface RetokenizeRefusal {
  source: 'refused';
  reason: RetokenizeRefusalReason;
  detail: string;
}

/**
 * Rebuilds a call's prompt and completion ids from its stored bodies, for calls whose backend returned none
 * (`tokenSource: 'none'`). The prompt is the backend request rendered as the server renders it (chat: the
 * tokenizer's chat format with `add_generation_prompt`, `continue_final_message`, `chat_template_kwargs` and a
 * request `chat_template` as sent; completions: the prompt string encoded with the tokenizer's frame, or the ids
 * as given); the completion is the reply written back as the model generated it (see the tokenizer's
 * `writeReply`) plus the end-of-turn token when the turn ended. Samples built from it must be marked
 * `faithful: false`: the ids are a tokenization of the text, not necessarily the ids the model sampled, and no
 * logprobs exist for them. Returns a refusal, with its reason, when it cannot be done honestly.
 *
 * @example
 * const result = tryRetokenizeCall(call, store.getCallBodies(call.id)!, retokenizer);
 * if (result.source === 'refused') console.log(result.reason, result.detail);
 */
export function tryRetokenizeCall(call: CallRow, bodies: CallBodies, tokenizer: Retokenizer): RetokenizedCall | RetokenizeRefusal {
  if (call.status === 'in_progress' || call.status === 'incomplete') return refuse('call-not-finished', `the call is ${call.status}`);
  const request = bodies.backendRequestBody;
  if (!isRecord(request)) return refuse('unknown-request', 'no backend request body');
  const choice = firstChoice(bodies.responseBody);
  if (choice === null) return refuse('no-response', 'the response body has no first choice');
  const finish = readCallFinish(call, choice, request);
  if ('refusal' in finish) return refuse(finish.refusal, finish.detail);
  let ids: { prompt: Int32Array; completion: Int32Array } | RetokenizeRefusal;
  if (Array.isArray(request.messages)) ids = chatIds(call, request, choice, finish, tokenizer);
  else if ('prompt' in request) ids = completionsIds(request, choice, finish, tokenizer);
  else return refuse('unknown-request', 'the backend request has neither messages nor prompt');
  if ('source' in ids) return ids;
  return {
    promptTokenIds: ids.prompt,
    completionTokenIds: ids.completion,
    source: 'retokenized',
    tokenizer: { name: tokenizer.name, hash: tokenizer.hash },
  };
}

/**
 * `tryRetokenizeCall` without the reason: the ids, or null when they cannot be rebuilt honestly.
 *
 * @example
 * const ids = retokenizeCall(call, bodies, retokenizer); // { promptTokenIds, completionTokenIds, source: 'retokenized', ... } | null
 */
export function retokenizeCall(call: CallRow, bodies: CallBodies, tokenizer: Retokenizer): RetokenizedCall | null {
  const result = tryRetokenizeCall(call, bodies, tokenizer);
  return result.source === 'retokenized' ? result : null;
}

type Finish = { endsTurn: boolean; stopTokenId: number | null };
type Ids = { prompt: Int32Array; completion: Int32Array } | RetokenizeRefusal;

function chatIds(call: CallRow, request: Record<string, unknown>, choice: Record<string, unknown>, finish: Finish, tokenizer: Retokenizer): Ids {
  if (tokenizer.renderChat === undefined || tokenizer.writeReply === undefined) {
    return refuse('no-chat-format', `${tokenizer.name} has no chat format to render messages with`);
  }
  let promptText: string;
  try {
    promptText = tokenizer.renderChat(request.messages as unknown[], Array.isArray(request.tools) ? request.tools : null, chatOptions(call, request));
  } catch (error) {
    return refuse('render-failed', error instanceof Error ? error.message : String(error));
  }
  const output = readAssistantOutput(choice.message, finish.endsTurn);
  if (output === null) return refuse('no-response', 'the first choice has no message');
  const reply = tokenizer.writeReply(output, { promptText });
  if ('refusal' in reply) return refuse('unsupported-reply', reply.refusal);
  // vLLM encodes a rendered chat without adding special tokens unless the request says `add_special_tokens`
  const prompt = request.add_special_tokens === true ? tokenizer.encodePrompt(promptText) : tokenizer.encode(promptText);
  const completion = completionIds(tokenizer, reply.text, reply.endToken, finish);
  return 'source' in completion ? completion : { prompt, completion };
}

function completionsIds(request: Record<string, unknown>, choice: Record<string, unknown>, finish: Finish, tokenizer: Retokenizer): Ids {
  let prompt = request.prompt;
  if (Array.isArray(prompt) && prompt.length === 1 && (typeof prompt[0] === 'string' || Array.isArray(prompt[0]))) prompt = prompt[0];
  let promptIds: Int32Array;
  // vLLM's completions endpoint adds the tokenizer's special tokens unless `add_special_tokens: false`
  if (typeof prompt === 'string') promptIds = request.add_special_tokens === false ? tokenizer.encode(prompt) : tokenizer.encodePrompt(prompt);
  else if (Array.isArray(prompt) && prompt.every((id) => Number.isInteger(id))) promptIds = Int32Array.from(prompt as number[]);
  else return refuse('multiple-prompts', 'the prompt is not one string or one list of token ids');
  if (typeof choice.text !== 'string') return refuse('no-response', 'the first choice has no text');
  const completion = completionIds(tokenizer, choice.text, tokenizer.eosToken, finish);
  return 'source' in completion ? completion : { prompt: promptIds, completion };
}

/** The reply's ids, then the token that ended the turn: the reported stop id, else the format's end token. */
function completionIds(tokenizer: Retokenizer, text: string, endToken: string | null, finish: Finish): Int32Array | RetokenizeRefusal {
  const ids = Array.from(tokenizer.encode(text));
  if (!finish.endsTurn) return Int32Array.from(ids);
  if (finish.stopTokenId !== null) {
    // a stop id that is not a special token stays in vLLM's text, so it may already be the last id
    if (ids.at(-1) !== finish.stopTokenId) ids.push(finish.stopTokenId);
    return Int32Array.from(ids);
  }
  const endIds = endToken === null ? [] : Array.from(tokenizer.encode(endToken));
  const [endId] = endIds;
  if (endIds.length !== 1 || endId === undefined) return refuse('end-token', `the turn ended but ${tokenizer.name} has no single end-of-turn token`);
  ids.push(endId);
  return Int32Array.from(ids);
}

function chatOptions(call: CallRow, request: Record<string, unknown>): RenderChatOptions {
  const options: RenderChatOptions = {
    addGenerationPrompt: typeof request.add_generation_prompt === 'boolean' ? request.add_generation_prompt : true,
    continueFinalMessage: request.continue_final_message === true,
    // Harmony's `Current date:`: the day the call was made (UTC; the server's own clock zone is not recorded)
    date: new Date(call.startedAt).toISOString().slice(0, 10),
  };
  if (isRecord(request.chat_template_kwargs)) options.templateKwargs = request.chat_template_kwargs;
  if (typeof request.chat_template === 'string') options.template = request.chat_template;
  const effort = request.reasoning_effort;
  if (effort === 'low' || effort === 'medium' || effort === 'high') options.reasoningEffort = effort;
  return options;
}

function firstChoice(body: unknown): Record<string, unknown> | null {
  if (!isRecord(body) || !Array.isArray(body.choices)) return null;
  const choice = body.choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
  return isRecord(choice) ? choice : null;
}

function refuse(reason: RetokenizeRefusalReason, detail: string): RetokenizeRefusal {
  return { source: 'refused', reason, detail };
}
