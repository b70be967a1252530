import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { expect } from 'vitest';
import type { GatewayOptions } from '../../gateway/create-gateway.js';
import { qwen3TokenizerDir } from '../../model-format/tokenizer/load-hf-tokenizer.js';
import type { SimBackendOptions, SimScript } from '../../sim/index.js';
import type { SimReply } from '../../sim/render-reply-text.js';
import type { CallRow } from '../../store/types.js';
import { startGatewayWithSim, type GatewayWithSim } from '../helpers/gateway-with-sim.js';

export const MODEL = 'Qwen/Qwen3-8B';

/** A tool each step of the scripted trajectories calls. */
export const STEP_TOOL = {
  type: 'function' as const,
  function: {
    name: 'read_step',
    description: 'Read the note of one step.',
    parameters: { type: 'object', properties: { step: { type: 'integer' }, label: { type: 'string' } }, required: ['step'] },
  },
};

/** STEP_TOOL as the Responses API declares a function tool. */
export const STEP_RESPONSES_TOOL = {
  type: 'function' as const,
  name: STEP_TOOL.function.name,
  description: STEP_TOOL.function.description,
  parameters: STEP_TOOL.function.parameters,
  strict: false,
};

/**
 * One turn of a tool loop as most harnesses write it (examples/tool-agent.ts): the assistant message goes back with
 * its content and tool calls but without its reasoning (so Qwen3's template renders earlier turns without `<think>`),
 * then a tool result per call. Says whether the model called a tool, and what it wrote.
 *
 * @example
 * const { called, content } = await toolLoopTurn(client, messages, true);
 */
export async function toolLoopTurn(
  client: OpenAI,
  messages: ChatCompletionMessageParam[],
  stream: boolean,
): Promise<{ called: boolean; content: string }> {
  const request = { model: MODEL, messages, tools: [STEP_TOOL] };
  const message = stream
    ? (await client.chat.completions.stream(request).finalChatCompletion()).choices[0]!.message
    : (await client.chat.completions.create(request)).choices[0]!.message;
  const toolCalls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
  messages.push({ role: 'assistant', content: message.content ?? '', ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
  for (const call of toolCalls) {
    const { step } = JSON.parse(call.function.arguments) as { step: number };
    messages.push({ role: 'tool', tool_call_id: call.id, content: `Note ${step}: the value is ${step * 7}.` });
  }
  return { called: toolCalls.length > 0, content: message.content ?? '' };
}

/** What the model does at step `step` of a trajectory: reasoning, then a tool call. */
export function stepReply(step: number): SimReply {
  return { reasoning: `Step ${step}: I read the next note.`, toolCalls: [{ name: 'read_step', arguments: { step, label: `note ${step}` } }] };
}

/** The final answer of a trajectory. */
export function answerReply(answer: string): SimReply {
  return { reasoning: 'I have read every note.', content: answer };
}

/**
 * Script entries answering in order, once each, on any endpoint (a token-id prompt has no text to match on): the
 * chat endpoint answers their fields, the completions endpoint the text Qwen3 writes for them (thinking on).
 */
export function orderedScript(replies: SimReply[]): SimScript {
  return { replies: replies.map((reply) => ({ ...reply })), otherwise: 'error' };
}

/**
 * The simulator and a gateway in token-faithful mode for every model (or plain when `tokenFaithful` is false),
 * rendering with the bundled Qwen3 folder unless told to use the backend's /tokenize.
 */
export async function startTokenFaithful(
  script: SimScript,
  options: { tokenFaithful?: boolean; render?: 'local' | 'backend'; sim?: SimBackendOptions; gateway?: GatewayOptions } = {},
): Promise<GatewayWithSim> {
  const faithful: GatewayOptions =
    options.tokenFaithful === false
      ? {}
      : {
          tokenFaithful: '*',
          ...(options.render === 'backend' ? {} : { modelDir: qwen3TokenizerDir() }),
        };
  return startGatewayWithSim({ script, ...options.sim }, { ...faithful, ...options.gateway });
}

/** True when call `next`'s prompt starts with call `earlier`'s prompt and completion, id for id. */
export function extendsCall(next: CallRow, earlier: CallRow): boolean {
  const expected = [...(earlier.promptTokenIds ?? []), ...(earlier.completionTokenIds ?? [])];
  const prompt = next.promptTokenIds ?? new Int32Array();
  return prompt.length > expected.length && expected.every((id, index) => prompt[index] === id);
}

/** Asserts that every call's prompt starts with the previous call's prompt + completion. */
export function expectPromptChain(calls: CallRow[]): void {
  for (let index = 1; index < calls.length; index++) {
    expect(extendsCall(calls[index]!, calls[index - 1]!), `call ${index + 1} extends call ${index}`).toBe(true);
  }
}
