import { ChatStreamAssembler } from '../backends/chat-stream-assembler.js';
import type { ChatTokenRecord } from '../backends/chat-token-record.js';
import { CompletionStreamAssembler } from '../backends/completion-stream-assembler.js';
import type { StreamAssembler } from '../backends/stream-assembler.js';
import { isRecord } from '../../core/json/is-record.js';
import { CompletionToChat } from './completion-to-chat.js';
import type { OutputParserOptions } from './output-parsers.js';

/** Rewrites another endpoint's payloads, in place, into `/v1/completions` ones (SGLang `/generate`: generate-to-completion.ts). */
export interface CompletionPayloadTranslator {
  chunk(payload: Record<string, unknown>): void;
  body(body: Record<string, unknown>): void;
}

/**
 * Reads a token-faithful call: the `/v1/completions` payloads the backend sent, for the exact ids (prompt ids,
 * completion ids, logprobs, finish), then rewrites each payload in place into the chat shape (completion-to-chat.ts)
 * and gathers that too, for the stored response body and the assistant message the session history keeps.
 * The pipeline hands the same payload object to the front door's renderer right after `add`, so the renderer sees
 * a chat chunk, exactly as on the chat path. A backend whose token-in endpoint is not `/v1/completions` (SGLang's
 * `/generate`) gives a first-stage translator that makes its payloads completions ones first.
 *
 * @example
 * const assembler = new TokenFaithfulAssembler(parserOptions);
 * assembler.add(payload); // payload is now a chat.completion.chunk
 */
export class TokenFaithfulAssembler implements StreamAssembler {
  readonly #tokens = new CompletionStreamAssembler();
  readonly #chat = new ChatStreamAssembler();
  readonly #translate: CompletionToChat;
  readonly #firstStage: CompletionPayloadTranslator | undefined;

  constructor(options: OutputParserOptions, firstStage?: CompletionPayloadTranslator) {
    this.#translate = new CompletionToChat(options);
    this.#firstStage = firstStage;
  }

  get finished(): boolean {
    return this.#tokens.finished;
  }

  add(payload: Record<string, unknown>): void {
    this.#firstStage?.chunk(payload);
    this.#tokens.add(payload);
    this.#translate.chunk(payload);
    this.#chat.add(payload);
  }

  addBody(body: Record<string, unknown>): void {
    this.#firstStage?.body(body);
    this.#tokens.addBody(body);
    this.#translate.body(body);
    this.#chat.addBody(body);
  }

  /** the ids exactly as the completions endpoint reported them */
  tokenRecord(): ChatTokenRecord {
    return this.#tokens.tokenRecord();
  }

  /** the call as one chat.completion body */
  responseBody(): Record<string, unknown> {
    return this.#chat.responseBody();
  }

  /** the assistant message the harness was answered with (content, reasoning, tool calls) */
  assistantMessage(): Record<string, unknown> {
    const choices = this.#chat.responseBody().choices;
    const choice = Array.isArray(choices) ? choices[0] : undefined;
    return isRecord(choice) && isRecord(choice.message) ? choice.message : { role: 'assistant', content: null };
  }
}
