import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import type { ReceivedCall } from './load-session.js';

/** The shape of every call of the PostgreSQL bench: the same for every target, so their figures compare. */
export interface CallShape {
  /** completion tokens per call (`max_tokens`; the simulator streams exactly that many, one per event) */
  tokens: number;
  /** bytes of system prompt (a fast-mode simulator counts one prompt token per 4 bytes) */
  systemPromptBytes: number;
  /** calls per session: the history grows turn by turn, then a new session starts */
  turns: number;
}

/** Where calls go: a gateway records them under `/s/<session>/`; the simulator itself (`direct`) takes plain paths. */
export interface CallTarget {
  pool: Pool;
  direct: boolean;
}

/** What one target's calls measured: latency from request sent to last byte read, and the calls received in full. */
export interface CallTally {
  latenciesMs: number[];
  received: ReceivedCall[];
  errors: number;
  errorSamples: string[];
  seconds: number;
}

export const emptyTally = (): CallTally => ({ latenciesMs: [], received: [], errors: 0, errorSamples: [], seconds: 0 });

/** One multi-turn conversation: its messages so far and the session id a gateway records it under. */
export class Conversation {
  messages: Array<{ role: string; content: string }> = [];
  sessionId = '';
  #started = 0;

  constructor(
    readonly name: string,
    readonly shape: CallShape,
  ) {
    this.#restart();
  }

  /** The next call's body. */
  body(): string {
    return JSON.stringify({
      model: 'Qwen/Qwen3-8B',
      stream: true,
      max_tokens: this.shape.tokens,
      stream_options: { include_usage: true },
      messages: this.messages,
    });
  }

  /** Appends the answer and the next user turn; past `turns` calls, a new session begins. */
  advance(answer: string): void {
    this.messages.push(
      { role: 'assistant', content: answer },
      { role: 'user', content: `Turn ${this.messages.length}: the tool returned exit code 0; go on.` },
    );
    if (this.messages.length >= 2 * this.shape.turns) this.#restart();
  }

  #restart(): void {
    this.sessionId = `${this.name}-${this.#started++}`;
    const rule = 'Follow the repository conventions, run the tests after each change, and explain every edit in one line. ';
    const system = `You are agent ${this.sessionId}. ${rule.repeat(Math.ceil(this.shape.systemPromptBytes / rule.length))}`;
    this.messages = [
      { role: 'system', content: system.slice(0, this.shape.systemPromptBytes) },
      { role: 'user', content: 'Turn 1: read the task and start.' },
    ];
  }
}

/**
 * Sends one call of `conversation` to `target` and reads its stream to the end; records its latency, or an error,
 * in `tally`, and returns the answer's content (null on error).
 *
 * @example const answer = await sendCall(target, conversation.sessionId, conversation.body(), shape.tokens, tally);
 */
export async function sendCall(target: CallTarget, sessionId: string, body: string, tokens: number, tally: CallTally): Promise<string | null> {
  const sentAt = performance.now();
  try {
    const response = await target.pool.request({
      method: 'POST',
      path: target.direct ? '/v1/chat/completions' : `/s/${sessionId}/v1/chat/completions`,
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.body.text();
    const latency = performance.now() - sentAt;
    const callId = response.headers['x-tokentap-call-id'];
    const problem =
      response.statusCode !== 200
        ? `HTTP ${response.statusCode} ${text.slice(0, 200)}`
        : !text.endsWith('data: [DONE]\n\n')
          ? 'the stream ended before data: [DONE]'
          : !target.direct && typeof callId !== 'string'
            ? 'no x-tokentap-call-id header'
            : null;
    if (problem !== null) throw new Error(problem);
    tally.latenciesMs.push(latency);
    if (typeof callId === 'string') tally.received.push({ callId, sessionId, completionTokens: tokens });
    return streamedContent(text);
  } catch (error) {
    tally.errors++;
    if (tally.errorSamples.length < 5) tally.errorSamples.push(`${sessionId}: ${(error as Error).message}`);
    return null;
  }
}

/** The content of an OpenAI chat stream, its deltas joined. */
function streamedContent(text: string): string {
  let content = '';
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const chunk = JSON.parse(line.slice('data: '.length)) as { choices?: Array<{ delta?: { content?: string | null } }> };
    content += chunk.choices?.[0]?.delta?.content ?? '';
  }
  return content;
}

/**
 * A closed loop at a fixed load: `concurrency` conversations, conversation i on target i mod N, each sending its next
 * call as soon as the last one ended, until `seconds` pass. Conversations carry over from one call of this to the
 * next (`conversations`), so the history keeps growing across rounds as an agent's would.
 *
 * @example await runClosedLoop([gatewayA, gatewayB], conversations, 10, tally);
 */
export async function runClosedLoop(
  targets: readonly CallTarget[],
  conversations: readonly Conversation[],
  seconds: number,
  tally: CallTally,
): Promise<void> {
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  await Promise.all(
    conversations.map(async (conversation, index) => {
      const target = targets[index % targets.length]!;
      while (performance.now() < deadline) {
        const answer = await sendCall(target, conversation.sessionId, conversation.body(), conversation.shape.tokens, tally);
        if (answer !== null) conversation.advance(answer);
      }
    }),
  );
  tally.seconds += (performance.now() - startedAt) / 1000;
}
