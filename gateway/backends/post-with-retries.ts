import { setTimeout as sleep } from 'node:timers/promises';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import type { BackendClient, BackendResponse } from './vllm.js';
import { isRetryableStatus, retryableFailureCode, retryDelayMs, type RetryPolicy } from './retry-policy.js';

/** One attempt that was given up on and sent again, as recorded in the call's `metadata.backendRetries`. */
export interface BackendRetry {
  /** the attempt that failed, 1 for the first */
  attempt: number;
  /** the backend's answer status (429, 502, 503, 504), or absent for a connection failure */
  status?: number;
  /** the connection failure's code (`ECONNREFUSED`, `UND_ERR_SOCKET`, ...), or absent for an answer */
  code?: string;
  /** ms waited before the next attempt (a `Retry-After`, or the jittered backoff) */
  waitMs: number;
  /** the harness left during the wait: no further attempt was sent */
  cancelled?: true;
}

export interface PostWithRetriesOptions {
  backend: BackendClient;
  path: string;
  body: unknown;
  /** the harness's: aborting it cancels the request in flight and any wait */
  signal: AbortSignal;
  policy: RetryPolicy;
  /** receives each retry as it is decided (the call records the list; metrics count it) */
  onRetry: (retry: BackendRetry) => void;
}

/**
 * POSTs to the backend, retrying by the policy while nothing has reached the harness yet: every attempt here
 * ends before the answer is relayed, so a retried call is still one call, recorded once. The last attempt's
 * answer is returned whatever its status (an error status is passed on by the caller); the last failure is
 * thrown, its message naming the attempts.
 *
 * @example const response = await postWithRetries({ backend, path: '/v1/chat/completions', body, signal, policy, onRetry })
 */
export async function postWithRetries(options: PostWithRetriesOptions): Promise<BackendResponse> {
  const { policy, signal } = options;
  for (let attempt = 1; ; attempt++) {
    const canRetry = attempt <= policy.retries;
    let response: BackendResponse;
    try {
      response = await options.backend.postJson(options.path, options.body, signal);
    } catch (error) {
      const code = canRetry && !signal.aborted ? retryableFailureCode(error) : null;
      const waitMs = code === null ? null : retryDelayMs(policy, attempt, undefined);
      if (code === null || waitMs === null) throw withAttempts(error, attempt);
      await waitToRetry(options, { attempt, code, waitMs }, error);
      continue;
    }
    if (!canRetry || !isRetryableStatus(response.statusCode)) return response;
    const retryAfter = response.headers['retry-after'];
    const waitMs = retryDelayMs(policy, attempt, typeof retryAfter === 'string' ? retryAfter : undefined);
    if (waitMs === null) return response; // the backend asks for a longer pause than we wait: the harness decides
    discardBody(response);
    const failure = new TokentapError('TT_BACKEND_ERROR', {
      status: response.statusCode,
      message: `Inference backend answered ${response.statusCode}`,
    });
    await waitToRetry(options, { attempt, status: response.statusCode, waitMs }, failure);
  }
}

/** Announces the retry, then waits; a harness that leaves meanwhile ends the call with the failure in hand. */
async function waitToRetry(options: PostWithRetriesOptions, retry: BackendRetry, failure: unknown): Promise<void> {
  options.onRetry(retry);
  try {
    await sleep(retry.waitMs, undefined, { signal: options.signal });
  } catch {
    retry.cancelled = true;
    throw withAttempts(failure, retry.attempt);
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
