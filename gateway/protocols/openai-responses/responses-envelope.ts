import { isRecord } from '../../../core/json/is-record.js';
import type { OutputItem } from './responses-output-items.js';

/** What every Response object of one call shares: id, creation time, model and the request it echoes. */
export interface ResponseEnvelope {
  id: string;
  createdAt: number;
  model: string;
  request: Record<string, unknown>;
}

export interface ResponseState {
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  output: OutputItem[];
  usage: Record<string, unknown> | null;
  error?: { code: string; message: string } | null;
  /** why an incomplete response stopped (`max_output_tokens` when the backend hit its token limit) */
  incompleteReason?: string;
}

function echo(value: unknown, fallback: unknown): unknown {
  return value === undefined || value === null ? fallback : value;
}

/**
 * The `response` object as OpenAI's API returns it (openai-node `Response`): the state of this call plus the
 * request's settings echoed back. The echo describes what the harness asked; what reached the backend is in
 * the recorded backend request body.
 *
 * @example responseObject(envelope, { status: 'completed', output, usage })
 */
export function responseObject(envelope: ResponseEnvelope, state: ResponseState): Record<string, unknown> {
  const request = envelope.request;
  const reasoning = isRecord(request.reasoning) ? request.reasoning : {};
  const response: Record<string, unknown> = {
    id: envelope.id,
    object: 'response',
    created_at: envelope.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason === undefined ? null : { reason: state.incompleteReason },
    instructions: echo(request.instructions, null),
    max_output_tokens: echo(request.max_output_tokens, null),
    metadata: echo(request.metadata, {}),
    model: envelope.model,
    output: state.output,
    parallel_tool_calls: echo(request.parallel_tool_calls, true),
    previous_response_id: echo(request.previous_response_id, null),
    reasoning: { effort: echo(reasoning.effort, null), summary: echo(reasoning.summary, null) },
    store: echo(request.store, true),
    temperature: echo(request.temperature, null),
    text: echo(request.text, { format: { type: 'text' } }),
    tool_choice: echo(request.tool_choice, 'auto'),
    tools: echo(request.tools, []),
    top_p: echo(request.top_p, null),
    truncation: echo(request.truncation, 'disabled'),
    usage: state.usage,
    user: echo(request.user, null),
  };
  if (typeof request.prompt_cache_key === 'string') response.prompt_cache_key = request.prompt_cache_key;
  if (state.status === 'completed') response.completed_at = Math.floor(Date.now() / 1000);
  return response;
}
