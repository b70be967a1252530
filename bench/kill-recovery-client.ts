import type { SeededRandom } from '../sim/seeded-random.js';
import { readChatAnswer, type ChatAnswer } from './read-chat-answer.js';

/** A chat request body as the client sent it (kept to compare with what the store holds). */
export type ChatRequestBody = { model: string; stream: boolean; messages: Array<Record<string, unknown>>; tools: unknown[] };

/** A call whose response the client received in full: the promise is that the store holds it, token-exact. */
export interface AcknowledgedCall extends ChatAnswer {
  sessionId: string;
  /** the `x-tokentap-call-id` header */
  callId: string;
  requestBody: ChatRequestBody;
}

/**
 * Where the gateway is, while it is up: clients wait here while it is killed and restarted.
 *
 * @example
 * gate.close(); gateway.child.kill('SIGKILL'); // clients now wait in whenUp()
 * gate.open(restarted.url);
 */
export class GatewayGate {
  #url: string | null = null;
  #waiters: Array<(url: string) => void> = [];

  /** resolves with the gateway's URL at once when it is up, else once it is back */
  whenUp(): Promise<string> {
    if (this.#url !== null) return Promise.resolve(this.#url);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  open(url: string): void {
    this.#url = url;
    for (const resolve of this.#waiters.splice(0)) resolve(url);
  }

  close(): void {
    this.#url = null;
  }
}

/**
 * What all the clients did, shared by the sessions of one run.
 *
 * @example
 * const ledger = new ClientLedger();
 * await ledger.whenAcknowledged(10); // ten calls received in full so far
 */
export class ClientLedger {
  readonly acknowledged: AcknowledgedCall[] = [];
  attempts = 0;
  /** calls in flight right now */
  inFlight = 0;
  /** attempts cut by a kill (connection refused or reset, a stream that ended before `data: [DONE]`) */
  interrupted = 0;
  /** answers that were neither a full response nor a cut: status and a piece of the body */
  readonly unexpected: string[] = [];
  #waiters: Array<{ count: number; resolve: () => void }> = [];
  #onLastByte: (() => void) | null = null;

  acknowledge(call: AcknowledgedCall): void {
    this.acknowledged.push(call);
    this.#waiters = this.#waiters.filter((waiter) => {
      if (this.acknowledged.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }

  /** Runs `action` the moment a client next receives the last byte of an answer (a stream's `data: [DONE]`, a body's end). */
  atNextLastByte(action: () => void): Promise<void> {
    return new Promise((resolve) => {
      this.#onLastByte = () => {
        this.#onLastByte = null;
        action();
        resolve();
      };
    });
  }

  /** a client received the last byte of an answer; called synchronously, before it reads on */
  lastByte(): void {
    this.#onLastByte?.();
  }

  /** resolves once `count` calls in all have been acknowledged */
  whenAcknowledged(count: number): Promise<void> {
    if (this.acknowledged.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }
}

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const TOPICS = ['the build', 'a failing test', 'the weather', 'the config file', 'a slow query', 'the release notes', 'the weather in Paris'];

export interface ChatSessionOptions {
  sessionId: string;
  gate: GatewayGate;
  ledger: ClientLedger;
  random: SeededRandom;
  model: string;
  /** asked before every turn; true ends the session */
  done: (acknowledgedTurns: number) => boolean;
}

/**
 * One agent-like session: a growing conversation of user turns, answers and tool results, each turn streamed or
 * not at random. A turn the gateway's death interrupts is sent again (as a new call) once it is back; a turn
 * answered in full is remembered as acknowledged and the conversation goes on.
 *
 * @example await runChatSession({ sessionId: 'kr-1', gate, ledger, random, model, done: (turns) => turns >= 5 });
 */
export async function runChatSession(options: ChatSessionOptions): Promise<void> {
  const { random, ledger } = options;
  const messages: Array<Record<string, unknown>> = [{ role: 'system', content: `You are agent ${options.sessionId}. Answer briefly.` }];
  messages.push({ role: 'user', content: userTurn(random, 0) });
  let turns = 0;
  while (!options.done(turns)) {
    const url = await options.gate.whenUp();
    const requestBody: ChatRequestBody = {
      model: options.model,
      stream: random.chance(0.5),
      messages: structuredClone(messages),
      tools: [WEATHER_TOOL],
    };
    ledger.attempts++;
    ledger.inFlight++;
    const outcome = await sendTurn(`${url}/s/${options.sessionId}/v1/chat/completions`, requestBody, ledger).finally(() => ledger.inFlight--);
    if (outcome.kind === 'interrupted') {
      ledger.interrupted++;
      continue;
    }
    if (outcome.kind === 'unexpected') {
      ledger.unexpected.push(outcome.detail);
      continue;
    }
    ledger.acknowledge({ ...outcome.answer, sessionId: options.sessionId, callId: outcome.callId, requestBody });
    turns++;
    const { answer } = outcome;
    if (answer.toolCalls.length > 0) {
      messages.push({
        role: 'assistant',
        content: answer.content === '' ? null : answer.content,
        tool_calls: answer.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      });
      for (const call of answer.toolCalls) messages.push({ role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' });
    } else {
      messages.push({ role: 'assistant', content: answer.content });
      messages.push({ role: 'user', content: userTurn(random, turns) });
    }
  }
}

type TurnOutcome = { kind: 'acknowledged'; callId: string; answer: ChatAnswer } | { kind: 'interrupted' } | { kind: 'unexpected'; detail: string };

async function sendTurn(url: string, requestBody: ChatRequestBody, ledger: ClientLedger): Promise<TurnOutcome> {
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(requestBody) });
  } catch {
    return { kind: 'interrupted' };
  }
  const callId = response.headers.get('x-tokentap-call-id');
  if (response.status !== 200 || callId === null) {
    const text = await response.text().catch(() => '');
    return { kind: 'unexpected', detail: `HTTP ${response.status}: ${text.slice(0, 200)}` };
  }
  const answer = await readChatAnswer(response, requestBody.stream, () => ledger.lastByte());
  return answer === null ? { kind: 'interrupted' } : { kind: 'acknowledged', callId, answer };
}

function userTurn(random: SeededRandom, turn: number): string {
  const filler = Array.from({ length: random.integer(2, 12) }, () => random.pick(['please', 'check', 'again', 'quickly', 'carefully', 'now'])).join(
    ' ',
  );
  return `Turn ${turn}: tell me about ${random.pick(TOPICS)}, ${filler}.`;
}
