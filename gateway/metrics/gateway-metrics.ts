import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FinishCallInput } from '../../store/types.js';
import type { Recorder, RecorderCounters } from '../recorder/recorder.js';
import type { BackendRetry } from '../backends/post-with-retries.js';
import { processMetrics } from './process-metrics.js';

/** Seconds; generations run from a fraction of a second to many minutes. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const FIRST_TOKEN_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** A recorded call as the metrics see it (labels only: never a session id or a model name). */
export interface ObservedCall {
  frontDoor: string;
  stream: boolean;
}

/**
 * The gateway's Prometheus metrics (docs/reliability.md, "Disk trouble and metrics"), in a registry of its own so
 * several gateways in one process never clash. Live counts are kept here; the recorder's counters are read at
 * scrape time.
 *
 * @example
 * const metrics = new GatewayMetrics({ recorder });
 * metrics.requestAnswered('openai-chat', 200);
 * const text = await metrics.exposition();
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({
    name: 'tokentap_requests_total',
    help: 'HTTP requests answered, by front door and status code',
    labelNames: ['front_door', 'status_code'],
    registers: [this.registry],
  });
  readonly #errors = new Counter({
    name: 'tokentap_errors_total',
    help: 'Errors answered (error statuses and error events inside started streams), by front door and code',
    labelNames: ['front_door', 'code'],
    registers: [this.registry],
  });
  readonly #calls = new Counter({
    name: 'tokentap_calls_total',
    help: 'Model calls ended, by front door and recorded status (ok, backend_error, aborted)',
    labelNames: ['front_door', 'status'],
    registers: [this.registry],
  });
  // a harness leaving is not a failure of anything tokentap watches: counted here, never in tokentap_errors_total
  readonly #clientAborts = new Counter({
    name: 'tokentap_client_aborts_total',
    help: 'Model calls the harness left before their answer was complete (recorded aborted, TT_CLIENT_ABORTED; the backend request cancelled), by front door',
    labelNames: ['front_door'],
    registers: [this.registry],
  });
  readonly #inFlight = new Gauge({
    name: 'tokentap_calls_in_flight',
    help: 'Model calls begun and not ended',
    labelNames: ['front_door'],
    registers: [this.registry],
  });
  readonly #duration = new Histogram({
    name: 'tokentap_call_duration_seconds',
    help: 'Model call time from acceptance to end',
    labelNames: ['front_door', 'stream'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly #firstToken = new Histogram({
    name: 'tokentap_time_to_first_token_seconds',
    help: "Time from acceptance to the first byte of the backend's answer (streams: its first chunk)",
    labelNames: ['front_door', 'stream'],
    buckets: FIRST_TOKEN_BUCKETS,
    registers: [this.registry],
  });
  readonly #eventStreamCutoffs = new Counter({
    name: 'tokentap_event_stream_cutoffs_total',
    help: 'Admin event streams closed because their reader fell too far behind (eventStreamMaxBufferBytes)',
    registers: [this.registry],
  });
  readonly #tokenFaithfulFallbacks = new Counter({
    name: 'tokentap_token_faithful_fallbacks_total',
    help: 'Calls of a token-faithful model sent to the chat endpoint because their prompt could not be rendered, by reason (render-failed)',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly #retries = new Counter({
    name: 'tokentap_backend_retries_total',
    help: 'Backend requests sent again, by reason (status code or connection failure code)',
    labelNames: ['reason'],
    registers: [this.registry],
  });

  constructor(options: { recorder: Pick<Recorder, 'counters' | 'health'> }) {
    this.#registerRecorderMetrics(options.recorder);
  }

  /** The text exposition format's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  requestAnswered(frontDoor: string, statusCode: number): void {
    this.#requests.inc({ front_door: frontDoor, status_code: String(statusCode) });
  }

  errorAnswered(frontDoor: string, code: string): void {
    this.#errors.inc({ front_door: frontDoor, code });
  }

  callStarted(frontDoor: string): void {
    this.#inFlight.inc({ front_door: frontDoor });
  }

  /** A call's end as recorded: its status, timings, and an error sent inside a stream that had started. */
  callEnded(call: ObservedCall, result: FinishCallInput): void {
    const labels = { front_door: call.frontDoor, stream: String(call.stream) };
    this.#inFlight.dec({ front_door: call.frontDoor });
    this.#calls.inc({ front_door: call.frontDoor, status: result.status });
    this.#duration.observe(labels, result.totalMs / 1000);
    if (result.timeToFirstTokenMs !== null) this.#firstToken.observe(labels, result.timeToFirstTokenMs / 1000);
    if (result.status === 'aborted') {
      // nobody was answered: no error event went out, and the thrown TT_CLIENT_ABORTED is not counted (onError)
      this.#clientAborts.inc({ front_door: call.frontDoor });
      return;
    }
    // errors before the answer are thrown and counted where they are answered; these went out as stream events
    if (result.error !== null && result.responseStream !== null && result.responseStream !== undefined && result.error.code !== undefined) {
      this.errorAnswered(call.frontDoor, result.error.code);
    }
  }

  eventStreamCutOff(): void {
    this.#eventStreamCutoffs.inc();
  }

  /** A call of a token-faithful model that went plain where it should not have (flagged `token_faithful_fallback`). */
  tokenFaithfulFellBack(reason: string): void {
    this.#tokenFaithfulFallbacks.inc({ reason });
  }

  backendRetried(retry: BackendRetry): void {
    this.#retries.inc({ reason: retry.status === undefined ? (retry.code ?? 'unknown') : String(retry.status) });
  }

  /** This gateway's metrics, then the process's. */
  async exposition(): Promise<string> {
    return `${await this.registry.metrics()}\n${await processMetrics().metrics()}`;
  }

  #registerRecorderMetrics(recorder: Pick<Recorder, 'counters' | 'health'>): void {
    const registers = [this.registry];
    const fromCounters = (name: string, help: string, read: (counters: RecorderCounters) => number): void => {
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read(recorder.counters));
        },
      });
    };
    fromCounters('tokentap_calls_recorded_total', 'Calls whose end was committed to the store', (counters) => counters.callsRecorded);
    fromCounters(
      'tokentap_recording_failures_total',
      'Store writes that failed (disk full, read-only, a dead recording thread, ...)',
      (counters) => counters.recordingFailures,
    );
    fromCounters(
      'tokentap_record_batches_total',
      'Store transactions committed (group commit: one carries many writes)',
      (counters) => counters.batchesCommitted,
    );
    new Counter({
      name: 'tokentap_tokens_recorded_total',
      help: 'Token ids of the calls recorded, by kind (prompt, completion)',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        this.inc({ kind: 'prompt' }, recorder.counters.promptTokensRecorded);
        this.inc({ kind: 'completion' }, recorder.counters.completionTokensRecorded);
      },
    });
    new Gauge({
      name: 'tokentap_recording_failing',
      help: '1 while the newest store write failed (health: degraded)',
      registers,
      collect() {
        this.set(recorder.health().failing ? 1 : 0);
      },
    });
    fromCounters(
      'tokentap_recording_ends_retried_total',
      'Call ends the store refused at first and took on a retry',
      (counters) => counters.endsRetried,
    );
    fromCounters(
      'tokentap_recording_calls_marked_incomplete_total',
      'Calls marked incomplete while the gateway ran: their end could not be written',
      (counters) => counters.callsMarkedIncomplete,
    );
    new Gauge({
      name: 'tokentap_recording_ends_waiting',
      help: 'Calls whose end the store refused, left in_progress until a retry writes it (health: degraded)',
      registers,
      collect() {
        this.set(recorder.health().endsWaiting);
      },
    });
    new Gauge({
      name: 'tokentap_recording_up',
      help: '0 once recording is given up (the recording thread is down for good)',
      registers,
      collect() {
        this.set(recorder.health().healthy ? 1 : 0);
      },
    });
  }
}
