import { SseDecoder } from '../../core/sse/sse-decoder.js';
import type { GatewayEventName, GatewayEvents } from './rollout-api.js';

type AnyListener = (payload: never) => void;

/** Wait before reconnecting a dropped event stream. */
const RECONNECT_DELAY_MS = 1_000;

/**
 * `GET /tokentap/v1/events` read as a stream of typed events for `connectGateway(...).on()`. The stream opens with
 * the first listener and reconnects after a drop while anyone listens; `ready()` resolves once it is open (events
 * from before that moment are not replayed).
 *
 * @example
 * const events = new RemoteEvents(url, { authorization: `Bearer ${token}` });
 * events.on('session-end', (event) => console.log(event.sessionId));
 * await events.ready();
 */
export class RemoteEvents {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #listeners = new Map<GatewayEventName, Set<AnyListener>>();
  #controller: AbortController | null = null;
  #opened: Promise<void> | null = null;
  #closed = false;

  constructor(url: string, headers: Record<string, string>) {
    this.#url = url;
    this.#headers = headers;
  }

  on<E extends GatewayEventName>(event: E, listener: (payload: GatewayEvents[E]) => void): () => void {
    const listeners = this.#listeners.get(event) ?? new Set<AnyListener>();
    this.#listeners.set(event, listeners);
    listeners.add(listener as AnyListener);
    void this.ready().catch(() => undefined);
    return () => void listeners.delete(listener as AnyListener);
  }

  /** Opens the stream if it is not open; resolves once the gateway has answered it. */
  ready(): Promise<void> {
    if (this.#opened === null) this.#opened = this.#open();
    return this.#opened;
  }

  close(): void {
    this.#closed = true;
    this.#controller?.abort();
  }

  async #open(): Promise<void> {
    const controller = new AbortController();
    this.#controller = controller;
    const response = await fetch(this.#url, { headers: { ...this.#headers, accept: 'text/event-stream' }, signal: controller.signal });
    if (!response.ok || response.body === null) {
      this.#opened = null;
      throw new Error(`the gateway's event stream answered ${response.status}: ${await response.text()}`);
    }
    void this.#pump(response.body).finally(() => this.#reconnectLater());
  }

  async #pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new SseDecoder();
    try {
      for await (const chunk of body) for (const event of decoder.push(chunk)) this.#dispatch(event.event, event.data);
    } catch {
      // dropped (or closed by us): reconnectLater decides
    }
  }

  #dispatch(name: string | undefined, data: string): void {
    const listeners = this.#listeners.get(name as GatewayEventName);
    if (listeners === undefined || listeners.size === 0) return;
    const payload = JSON.parse(data) as never;
    for (const listener of listeners) listener(payload);
  }

  #reconnectLater(): void {
    this.#opened = null;
    const listening = [...this.#listeners.values()].some((listeners) => listeners.size > 0);
    if (this.#closed || !listening) return;
    setTimeout(() => void this.ready().catch(() => this.#reconnectLater()), RECONNECT_DELAY_MS).unref();
  }
}
