import { isRecord } from '../../../core/json/is-record.js';
import { REASONING_FIELDS } from '../../../model-format/backend-fields/read-reasoning.js';

/**
 * The `chat.completion.chunk` payloads a streamed call would have sent for a whole chat completion body, in the form
 * vLLM streams them (what ChatStreamAssembler and every front door's renderer read): per choice a role chunk, the
 * reasoning, the content, one chunk per tool call (with its `index`), and a finishing chunk with `finish_reason`,
 * SGLang's `matched_stop`, the choice's logprobs and `token_ids`; the prompt ids top-level on the first chunk (where
 * the renderers strip them when the harness did not ask), SGLang's `metadata` (weight version) beside them, and a
 * last usage-only chunk (dropped by the renderers unless the harness asked `stream_options.include_usage`).
 *
 * @example chatChunksFromBody({ id: 'c1', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }] })
 */
export function chatChunksFromBody(body: Record<string, unknown>): Record<string, unknown>[] {
  const head = { id: body.id, object: 'chat.completion.chunk', created: body.created, model: body.model };
  const chunks: Record<string, unknown>[] = [];
  const choices = Array.isArray(body.choices) ? body.choices.filter(isRecord) : [];
  for (const [position, choice] of choices.entries()) {
    const index = typeof choice.index === 'number' ? choice.index : position;
    const message = isRecord(choice.message) ? choice.message : {};
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): void => {
      chunks.push({ ...head, choices: [{ index, delta, logprobs: null, finish_reason: null, ...extra }] });
    };
    chunk({ role: 'assistant', content: '' });
    if (chunks.length === 1) Object.assign(chunks[0]!, firstChunkFields(body, choice));
    const reasoning = REASONING_FIELDS.find((field) => typeof message[field] === 'string' && message[field] !== '');
    if (reasoning !== undefined) chunk({ [reasoning]: message[reasoning] });
    if (typeof message.content === 'string' && message.content !== '') chunk({ content: message.content });
    const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
    for (const [callIndex, call] of toolCalls.entries()) chunk({ tool_calls: [toolCallDelta(call, callIndex)] });
    chunk(
      {},
      {
        logprobs: choice.logprobs ?? null,
        finish_reason: choice.finish_reason ?? null,
        ...(choice.matched_stop === undefined ? {} : { matched_stop: choice.matched_stop }),
        ...(choice.stop_reason === undefined ? {} : { stop_reason: choice.stop_reason }),
        token_ids: choice.token_ids ?? null,
      },
    );
  }
  if (isRecord(body.usage)) chunks.push({ ...head, choices: [], usage: body.usage });
  return chunks;
}

/** The first chunk's extras: the prompt ids (top-level, as vLLM streams them) and SGLang's `metadata`. */
function firstChunkFields(body: Record<string, unknown>, choice: Record<string, unknown>): Record<string, unknown> {
  const promptIds = Array.isArray(body.prompt_token_ids) ? body.prompt_token_ids : choice.prompt_token_ids;
  return {
    ...(Array.isArray(promptIds) ? { prompt_token_ids: promptIds } : {}),
    ...(isRecord(body.metadata) ? { metadata: body.metadata } : {}),
  };
}

/** A whole tool call as one streamed delta; SGLang may give `arguments` as an object (FunctionResponse: `str | Dict`). */
function toolCallDelta(call: Record<string, unknown>, position: number): Record<string, unknown> {
  const fn = isRecord(call.function) ? call.function : {};
  const args =
    typeof fn.arguments === 'string' ? fn.arguments : fn.arguments === undefined || fn.arguments === null ? '' : JSON.stringify(fn.arguments);
  return {
    index: typeof call.index === 'number' ? call.index : position,
    id: call.id,
    type: typeof call.type === 'string' ? call.type : 'function',
    function: { name: typeof fn.name === 'string' ? fn.name : '', arguments: args },
  };
}
