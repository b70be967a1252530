import { setTimeout as sleep } from 'node:timers/promises';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { BackendResponse } from './vllm.js';
import type { BackendFleet, ReplicaLease } from './fleet/fleet-types.js';
import { isRetryableStatus, retryableFailureCode, retryDelayMs, type RetryPolicy } from './retry-policy.js';

/** One attempt that was given up on, as recorded in the call's `metadata.backendRetries`. */
export interface BackendRetry {
  /** the attempt that failed, 1 for the first */
  attempt: number;
  /** the replica that attempt went to */
  backendId?: string;
  /** the backend's answer status (429, 500, 502, 503, 504), or absent for a connection failure */
  status?: number;
  /** the connection failure's code (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...), or absent for an answer */
  code?: string;
  /** ms waited before the next attempt: 0 when it went straight to another replica, else a `Retry-After` or the jittered backoff */
  waitMs: number;
  /** the harness left during the wait: no further attempt was sent */
  cancelled?: true;
}

/** What one attempt sends: the flavour of the replica picked decides path and body. */
export interface PreparedAttempt {
  path: string;
  body: unknown;
}

export interface PostWithRetriesOptions<T extends PreparedAttempt> {
  fleet: BackendFleet;
  /** the model name sent to the backend: it names the pool */
  model: string | null;
  /** the call's session: it keeps to one replica while that replica is up */
  sessionId: string | null;
  /** the first attempt's replica and request, when the caller picked it already (to record the body it sends) */
  first?: { lease: ReplicaLease; prepared: T } | undefined;
  /** the request for a replica */
  prepare: (lease: ReplicaLease) => T;
  /** the harness's: aborting it cancels the request in flight and any wait */
  signal: AbortSignal;
  policy: RetryPolicy;
  /** receives each retry as it is decided (the call records the list; metrics count it) */
  onRetry: (retry: BackendRetry) => void;
}

/** The answer being relayed, the replica it came from (release its lease once relayed) and what was sent. */
export interface FleetAnswer<T extends PreparedAttempt> {
  response: BackendResponse;
  lease: ReplicaLease;
  prepared: T;
}

/** An attempt that failed and what may follow it. */
interface FailedAttempt {
  retry: Omit<BackendRetry, 'waitMs'>;
  failure: unknown;
  /** worth asking the pool again after a wait (refused, reset, 429/502/503/504); a 500 is only sent to another replica */
  waitable: boolean;
  retryAfter?: string | undefined;
}

/** What follows a failed attempt: another replica at once, the pool again after a wait, or nothing (the failure stands). */
type FollowUp = { lease: ReplicaLease } | { waitMs: number } | null;

/**
 * POSTs a call to its model's pool while nothing has reached the harness yet, so a call sent several times is still
 * one call, recorded once (docs/backends.md, "Failover"). An attempt that fails before its answer starts (refused,
 * reset, 429 or 5xx) goes at once to a replica of the pool not tried yet; a replica that cannot be connected to
 * (refused, DNS, unreachable, connect timeout) or answered 502/503/504 is taken out of the fleet (`markFailed`) until
 * a health check finds it back (a reset, usually a stale keep-alive socket, a 429 (busy) and a 500 (this very request
 * failing) do not take it out). Once every usable replica failed, the pool is asked again after
 * the policy's backoff, up to `policy.retries` times (a 500 is not: a second try repeats it). The last answer is
 * returned whatever its status; the last failure is thrown, its message naming the attempts.
 *
 * @example const { response, lease } = await postWithRetries({ fleet, model, sessionId, prepare, signal, policy, onRetry })
 */
export async function postWithRetries<T extends PreparedAttempt>(options: PostWithRetriesOptions<T>): Promise<FleetAnswer<T>> {
  const { fleet } = options;
  const tried = new Set<string>();
  const waits = { left: options.policy.retries };
  let next = options.first ?? prepareFor(options, fleet.pick(pickInput(options, tried)));
  for (let attempt = 1; ; attempt++) {
    const { lease, prepared } = next;
    tried.add(lease.id);
    const sent = await sendAttempt(options, lease, prepared, attempt);
    if ('answer' in sent) return { response: sent.answer, lease, prepared };
    const { failed, response } = sent;
    const follow = followUp(options, tried, failed, waits);
    if (follow === null) {
      if (response !== null) return { response, lease, prepared };
      throw failed.failure;
    }
    if (response !== null) {
      discardBody(response);
      lease.release({ ok: false, code: 'TT_BACKEND_ERROR' });
      // a replica restarting, sleeping for a weight reload or overloaded past its queue: out until its health is checked
      if (response.statusCode !== 429 && response.statusCode !== 500) fleet.markFailed(lease.id, `answered ${response.statusCode}`);
    }
    if ('lease' in follow) {
      options.onRetry({ ...failed.retry, waitMs: 0 });
      next = prepareFor(options, follow.lease);
      continue;
    }
    await waitToRetry(options, { ...failed.retry, waitMs: follow.waitMs }, failed.failure);
    tried.clear();
    try {
      next = prepareFor(options, fleet.pick(pickInput(options, tried)));
    } catch {
      throw failed.failure;
    }
  }
}

/**
 * Sends one attempt: the answer to relay, or how it failed (with the error answer, when one came, which may still be
 * relayed if nothing follows it). A failure no other attempt can mend (not retryable, or the harness left) is thrown.
 */
async function sendAttempt(
  options: PostWithRetriesOptions<PreparedAttempt>,
  lease: ReplicaLease,
  prepared: PreparedAttempt,
  attempt: number,
): Promise<{ answer: BackendResponse } | { failed: FailedAttempt; response: BackendResponse | null }> {
  let response: BackendResponse;
  try {
    response = await lease.client.postJson(prepared.path, prepared.body, options.signal);
  } catch (error) {
    lease.release({ ok: false, code: error instanceof TokentapError ? error.code : 'TT_BACKEND_UNREACHABLE' });
    const code = options.signal.aborted ? null : retryableFailureCode(error);
    if (code === null) throw withAttempts(error, attempt);
    // a replica nobody can connect to is out; a reset (a stale keep-alive socket, usually) only sends this call elsewhere
    if (CANNOT_CONNECT.has(code)) options.fleet.markFailed(lease.id, error instanceof Error ? error.message : String(error));
    return { failed: { retry: { attempt, backendId: lease.id, code }, failure: withAttempts(error, attempt), waitable: true }, response: null };
  }
  const status = response.statusCode;
  if (status !== 500 && !isRetryableStatus(status)) return { answer: response };
  const retryAfter = response.headers['retry-after'];
  const failed: FailedAttempt = {
    retry: { attempt, backendId: lease.id, status },
    failure: withAttempts(new TokentapError('TT_BACKEND_ERROR', { status, message: `Inference backend answered ${status}` }), attempt),
    waitable: status !== 500,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
  };
  return { failed, response };
}

/** Connection failures that say the replica cannot be reached at all (not a socket reset on a connection that was open). */
const CANNOT_CONNECT: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function prepareFor<T extends PreparedAttempt>(options: PostWithRetriesOptions<T>, lease: ReplicaLease): { lease: ReplicaLease; prepared: T } {
  return { lease, prepared: options.prepare(lease) };
}

function pickInput(options: PostWithRetriesOptions<PreparedAttempt>, exclude: ReadonlySet<string>) {
  return { model: options.model, sessionId: options.sessionId, exclude };
}

/** Another replica not tried yet (leased now), else a wait the policy allows before the pool is asked again, else null. */
function followUp(
  options: PostWithRetriesOptions<PreparedAttempt>,
  tried: ReadonlySet<string>,
  failed: FailedAttempt,
  waits: { left: number },
): FollowUp {
  try {
    return { lease: options.fleet.pick(pickInput(options, tried)) };
  } catch (error) {
    if (!(error instanceof TokentapError) || error.code !== 'TT_BACKEND_UNAVAILABLE') throw error;
  }
  if (!failed.waitable || waits.left <= 0) return null;
  const waitMs = retryDelayMs(options.policy, options.policy.retries - waits.left + 1, failed.retryAfter);
  if (waitMs === null) return null; // the backend asks for a longer pause than we wait: the harness decides
  waits.left--;
  return { waitMs };
}

/** Announces the retry, then waits; a harness that leaves meanwhile ends the call with the failure in hand. */
async function waitToRetry(options: PostWithRetriesOptions<PreparedAttempt>, retry: BackendRetry, failure: unknown): Promise<void> {
  options.onRetry(retry);
  try {
    await sleep(retry.waitMs, undefined, { signal: options.signal });
  } catch {
    retry.cancelled = true;
    throw failure;
  }
}

/** The error answer is not passed on: reading it to the end frees its keep-alive connection. */
function discardBody(response: BackendResponse): void {
  response.body.on('error', () => undefined);
  response.body.resume();
}

/** A failure after retries says so (same code, cause and body); a first-attempt failure is left as it was. */
function withAttempts(error: unknown, attempts: number): unknown {
  if (attempts === 1 || !(error instanceof TokentapError)) return error;
  const message = `${error.message} (after ${attempts} attempts)`;
  return new TokentapError(error.code, {
    status: error.status,
    param: error.param,
    message,
    cause: error.cause,
    body: error.body,
    details: error.details,
  });
}
