import { createHistogram, performance, type RecordableHistogram } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { streamGroups } from '../sim/stream-groups.js';

/** A call the client received in full: the store must hold it `ok` with this many completion tokens. */
export interface ReceivedCall {
  callId: string;
  sessionId: string;
  completionTokens: number;
}

/**
 * What every session of a load run saw, shared by all of them. Latencies are in microseconds in HDR histograms
 * (perf_hooks), so millions of inter-token gaps cost a few kilobytes.
 *
 * @example
 * const stats = new LoadStats();
 * stats.timeToFirstToken.percentile(99) / 1000; // ms
 */
export class LoadStats {
  readonly received: ReceivedCall[] = [];
  readonly timeToFirstToken: RecordableHistogram = createHistogram();
  /** gaps between a call's content events (one token each at stream interval 1) */
  readonly interEvent: RecordableHistogram = createHistogram();
  /** calls that failed in any way: a status other than 200, a broken or short stream, an error event */
  errors = 0;
  readonly errorSamples: string[] = [];
  inFlight = 0;
  /** completion tokens of the calls received in full (their usage) */
  tokens = 0;
  /** content events received */
  events = 0;

  error(detail: string): void {
    this.errors++;
    if (this.errorSamples.length < 10) this.errorSamples.push(detail);
  }
}

export interface LoadSessionOptions {
  pool: Pool;
  /** the session's number; its recorded session ids are `load-<index>-<conversation>` */
  index: number;
  /** completion tokens asked per call (`max_tokens`): the simulator streams exactly that many */
  tokens: number;
  /** the simulator's stream interval: each call arrives in exactly as many content events as streamGroups makes */
  streamInterval: number;
  /** bytes of system prompt (fast-mode simulators count one prompt token per 4 bytes of body) */
  systemPromptBytes: number;
  /** a conversation whose request body passes this many bytes goes on as a new session (context window) */
  maxBodyBytes: number;
  /** no call starts after this (performance.now() ms) */
  deadline: number;
  stats: LoadStats;
  /**
   * a replica may answer a streamed chat call from a whole body, in one content event (the gateway's path for a
   * streamed plain chat call on SGLang, docs/backends.md): one event is then a whole answer too
   */
  wholeBodyAnswers?: boolean;
}

/**
 * One agent-like session: a long system prompt and a growing history, one streamed call after another, each answer
 * read in full and appended with the next user turn, until the deadline. A conversation that outgrows the context
 * window goes on as a fresh one (a new recorded session), as a harness would start its next task.
 *
 * @example await runLoadSession({ pool, index: 7, tokens: 200, streamInterval: 1, systemPromptBytes: 24_000, maxBodyBytes: 120_000, deadline, stats });
 */
export async function runLoadSession(options: LoadSessionOptions): Promise<void> {
  let conversation = 0;
  let messages = startConversation(options.index, options.systemPromptBytes);
  while (performance.now() < options.deadline) {
    const sessionId = `load-${options.index}-${conversation}`;
    const body = JSON.stringify({
      model: 'Qwen/Qwen3-8B',
      stream: true,
      max_tokens: options.tokens,
      stream_options: { include_usage: true },
      messages,
    });
    options.stats.inFlight++;
    const answer = await streamCall(options, sessionId, body).finally(() => options.stats.inFlight--);
    if (answer === null) continue;
    messages.push({ role: 'assistant', content: answer }, { role: 'user', content: userTurn(messages.length) });
    if (body.length + answer.length > options.maxBodyBytes) {
      conversation++;
      messages = startConversation(options.index, options.systemPromptBytes);
    }
  }
}

function startConversation(index: number, systemPromptBytes: number): Array<{ role: string; content: string }> {
  const rule = 'Follow the repository conventions, run the tests after each change, and explain every edit in one line. ';
  const system = `You are coding agent ${index}. ${rule.repeat(Math.ceil(systemPromptBytes / rule.length))}`.slice(0, systemPromptBytes);
  return [
    { role: 'system', content: system },
    { role: 'user', content: userTurn(1) },
  ];
}

function userTurn(turn: number): string {
  return `Turn ${turn}: the tool returned exit code 0 and 48 lines of output; read them, decide the next step and carry it out.`;
}

/** One streamed call; returns the answer's content, or null (counted as an error) when it did not arrive whole. */
async function streamCall(options: LoadSessionOptions, sessionId: string, body: string): Promise<string | null> {
  const { stats } = options;
  const sentAt = performance.now();
  try {
    const response = await options.pool.request({
      method: 'POST',
      path: `/s/${sessionId}/v1/chat/completions`,
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (response.statusCode !== 200) {
      stats.error(`${sessionId}: HTTP ${response.statusCode} ${(await response.body.text()).slice(0, 200)}`);
      return null;
    }
    const callId = response.headers['x-tokentap-call-id'];
    const reader = new ChatStreamReader(sentAt, stats);
    for await (const chunk of response.body) reader.push(chunk as Buffer, performance.now());
    const events = [...streamGroups(options.tokens, options.streamInterval)].length;
    const problem = reader.problem(options.tokens, options.wholeBodyAnswers === true ? [events, 1] : [events]);
    if (problem !== null || typeof callId !== 'string') {
      stats.error(`${sessionId}: ${problem ?? 'no x-tokentap-call-id header'}`);
      return null;
    }
    stats.received.push({ callId, sessionId, completionTokens: options.tokens });
    stats.tokens += options.tokens;
    return reader.content;
  } catch (error) {
    stats.error(`${sessionId}: ${(error as Error).message}`);
    return null;
  }
}

/** Reads an OpenAI chat stream as it arrives, timing its first token and the gaps between content events. */
class ChatStreamReader {
  content = '';
  events = 0;
  #usageTokens: number | null = null;
  #finishReason: string | null = null;
  #done = false;
  #pending = '';
  #lastTokenAt: number | null = null;
  readonly #decoder = new TextDecoder();

  constructor(
    readonly sentAt: number,
    readonly stats: LoadStats,
  ) {}

  push(chunk: Buffer, now: number): void {
    const events = (this.#pending + this.#decoder.decode(chunk, { stream: true })).split('\n\n');
    this.#pending = events.pop() ?? '';
    for (const event of events) this.#readEvent(event.trim(), now);
  }

  #readEvent(event: string, now: number): void {
    if (event === '') return;
    if (event === 'data: [DONE]') {
      this.#done = true;
      return;
    }
    const chunk = JSON.parse(event.slice('data: '.length)) as {
      choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }>;
      usage?: { completion_tokens?: number } | null;
      error?: unknown;
    };
    if (chunk.error !== undefined) throw new Error(`error event: ${event.slice(0, 200)}`);
    const choice = chunk.choices?.[0];
    this.#finishReason = choice?.finish_reason ?? this.#finishReason;
    if (typeof chunk.usage?.completion_tokens === 'number') this.#usageTokens = chunk.usage.completion_tokens;
    const text = choice?.delta?.content ?? '';
    if (text === '') return;
    this.content += text;
    this.events++;
    this.stats.events++;
    // histograms take whole numbers from 1: microseconds
    const since = this.#lastTokenAt ?? this.sentAt;
    (this.#lastTokenAt === null ? this.stats.timeToFirstToken : this.stats.interEvent).record(Math.max(1, Math.round((now - since) * 1000)));
    this.#lastTokenAt = now;
  }

  /** Why the stream is not a whole answer of `expectedTokens` tokens in one of `expectedEvents` content event counts, or null. */
  problem(expectedTokens: number, expectedEvents: readonly number[]): string | null {
    if (!this.#done) return 'the stream ended before data: [DONE]';
    if (!expectedEvents.includes(this.events) || this.#usageTokens !== expectedTokens)
      return `${this.events} content events, usage ${this.#usageTokens}; expected ${expectedEvents.join(' or ')} events, ${expectedTokens} tokens`;
    if (this.#finishReason !== 'length') return `finish_reason ${this.#finishReason}`;
    return null;
  }
}
