import type { CallRow } from '../store/index.js';

/** A failed call's error as reports show it: the store's error without the backend's raw body. */
export interface CallErrorSummary {
  /** the HTTP status the harness was answered with (the backend's own where it answered) */
  httpStatus?: number;
  /** the tokentap code, e.g. TT_BACKEND_ERROR, TT_BACKEND_UNREACHABLE, TT_CLIENT_ABORTED */
  code?: string;
  message: string;
}

/**
 * Why a call that did not succeed left nothing to train on, named by what happened to it rather than by what is
 * missing (a 404 has no token ids because it failed, not because the backend withholds them). The reason holds
 * the status, HTTP status and code and nothing per call, so an export summary counts alike failures together;
 * the message comes apart, in `error`.
 *
 * @example
 * describeFailedCall(call);
 * // { reason: 'the call failed (backend_error, HTTP 404, TT_BACKEND_ERROR)',
 * //   error: { httpStatus: 404, code: 'TT_BACKEND_ERROR', message: 'The model `gpt-4o` does not exist.' } }
 */
export function describeFailedCall(call: Pick<CallRow, 'status' | 'error' | 'httpStatus'>): { reason: string; error?: CallErrorSummary } {
  // the status the harness was answered with; the backend's 200 before a stream was cut explains nothing
  const httpStatus = call.error?.httpStatus ?? (call.httpStatus !== null && call.httpStatus >= 400 ? call.httpStatus : undefined);
  const parts: string[] = [call.status];
  if (httpStatus !== undefined) parts.push(`HTTP ${httpStatus}`);
  if (call.error?.code !== undefined) parts.push(call.error.code);
  // an incomplete call has no error: its gateway stopped (or could not write) before the end was recorded
  const what = call.status === 'incomplete' ? 'the call never finished' : 'the call failed';
  const reason = `${what} (${parts.join(', ')})`;
  if (call.error === null) return { reason };
  const error: CallErrorSummary = { message: call.error.message };
  if (httpStatus !== undefined) error.httpStatus = httpStatus;
  if (call.error.code !== undefined) error.code = call.error.code;
  return { reason, error };
}
