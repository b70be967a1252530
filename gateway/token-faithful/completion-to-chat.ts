import { isRecord } from '../../core/json/is-record.js';
import { createOutputStreamParser, parseOutput, type OutputParserOptions, type OutputStreamParser } from './output-parsers.js';

/**
 * Rewrites vLLM `/v1/completions` payloads, in place, into what vLLM's chat endpoint would have sent for the same
 * generation, so every front door's renderer and the recorder read them unchanged: the text is parsed into
 * `reasoning`, `content` and `tool_calls` (the gateway owns parsing: token-in completions bypass vLLM's parsers),
 * the choice's `prompt_token_ids` move to the top level, legacy logprobs become chat logprobs, `token_ids` stay,
 * and `finish_reason` "stop" becomes "tool_calls" when tool calls were parsed.
 *
 * @example
 * const translate = new CompletionToChat(options);
 * translate.chunk(payload); // payload is now a chat.completion.chunk
 */
export class CompletionToChat {
  readonly #options: OutputParserOptions;
  readonly #stream: OutputStreamParser;
  #roleSent = false;

  constructor(options: OutputParserOptions) {
    this.#options = options;
    this.#stream = createOutputStreamParser(options);
  }

  /** One streamed text_completion payload -> chat.completion.chunk (the usage-only payload keeps its usage). */
  chunk(payload: Record<string, unknown>): void {
    payload.object = 'chat.completion.chunk';
    const choices = Array.isArray(payload.choices) ? payload.choices : [];
    payload.choices = choices.map((choice) => (isRecord(choice) && (choice.index ?? 0) === 0 ? this.#chunkChoice(payload, choice) : choice));
  }

  /** A whole text_completion body -> chat.completion. */
  body(body: Record<string, unknown>): void {
    body.object = 'chat.completion';
    const choices = Array.isArray(body.choices) ? body.choices : [];
    body.choices = choices.map((choice) => (isRecord(choice) && (choice.index ?? 0) === 0 ? this.#bodyChoice(body, choice) : choice));
  }

  #chunkChoice(payload: Record<string, unknown>, choice: Record<string, unknown>): Record<string, unknown> {
    // vLLM's chat stream carries prompt_token_ids top-level, in the first chunk only
    if (Array.isArray(choice.prompt_token_ids)) payload.prompt_token_ids = choice.prompt_token_ids;
    const delta: Record<string, unknown> = this.#roleSent ? {} : { role: 'assistant' };
    this.#roleSent = true;
    if (typeof choice.text === 'string') Object.assign(delta, this.#stream.push(choice.text));
    const finish = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
    if (finish !== null) {
      const rest = this.#stream.finish();
      if (rest?.content !== undefined) delta.content = `${typeof delta.content === 'string' ? delta.content : ''}${rest.content}`;
    }
    return {
      index: 0,
      delta,
      logprobs: toChatLogprobs(choice.logprobs),
      finish_reason: finish === 'stop' && this.#stream.toolCallsSeen ? 'tool_calls' : finish,
      stop_reason: choice.stop_reason ?? null,
      token_ids: choice.token_ids ?? null,
    };
  }

  #bodyChoice(body: Record<string, unknown>, choice: Record<string, unknown>): Record<string, unknown> {
    if (Array.isArray(choice.prompt_token_ids)) body.prompt_token_ids = choice.prompt_token_ids;
    const parsed = parseOutput(typeof choice.text === 'string' ? choice.text : '', this.#options);
    const message = { role: 'assistant', content: parsed.content, reasoning: parsed.reasoning, tool_calls: parsed.toolCalls };
    const finish = choice.finish_reason ?? null;
    return {
      index: 0,
      message,
      logprobs: toChatLogprobs(choice.logprobs),
      finish_reason: finish === 'stop' && parsed.toolCalls.length > 0 ? 'tool_calls' : finish,
      stop_reason: choice.stop_reason ?? null,
      token_ids: choice.token_ids ?? null,
    };
  }
}

/**
 * Legacy completions logprobs (`{tokens, token_logprobs, top_logprobs: [{token: logprob}]}`) as chat logprobs
 * (`{content: [{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]}`), alternatives likeliest first.
 *
 * @example toChatLogprobs({ tokens: ['Hi'], token_logprobs: [-0.1], top_logprobs: [{ Hi: -0.1 }] })
 */
export function toChatLogprobs(legacy: unknown): Record<string, unknown> | null {
  if (!isRecord(legacy) || !Array.isArray(legacy.tokens)) return null;
  const values = Array.isArray(legacy.token_logprobs) ? legacy.token_logprobs : [];
  const tops = Array.isArray(legacy.top_logprobs) ? legacy.top_logprobs : [];
  const content = legacy.tokens.map((token, position) => {
    const top = tops[position];
    const alternatives = isRecord(top) ? Object.entries(top).sort((left, right) => Number(right[1]) - Number(left[1])) : [];
    return {
      token: String(token),
      logprob: values[position] ?? null,
      bytes: utf8Bytes(String(token)),
      top_logprobs: alternatives.map(([text, logprob]) => ({ token: text, logprob, bytes: utf8Bytes(text) })),
    };
  });
  return { content };
}

function utf8Bytes(text: string): number[] {
  return Array.from(Buffer.from(text, 'utf8'));
}
