/**
 * Every error tokentap itself raises, in one table: code -> HTTP status, wire type, default message.
 * docs/errors.md lists the same codes with what to do about each.
 */
export const ERROR_CODES = {
  /** the body is not JSON, or JSON of the wrong shape */
  TT_INVALID_REQUEST: { status: 400, type: 'invalid_request_error', message: 'Invalid request' },
  /** body larger than --body-limit */
  TT_BODY_TOO_LARGE: { status: 413, type: 'invalid_request_error', message: 'Request body is larger than the configured limit' },
  /** content-type other than application/json */
  TT_UNSUPPORTED_MEDIA_TYPE: { status: 415, type: 'invalid_request_error', message: 'Content-Type must be application/json' },
  /** no such route */
  TT_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Not found' },
  /** a valid request that uses what tokentap cannot translate for the backend (a list of prompts, n > 1 on completions, item references, file inputs, background responses) */
  TT_UNSUPPORTED_FEATURE: { status: 400, type: 'invalid_request_error', message: 'This request uses a feature tokentap does not support' },
  /** `previous_response_id` names a response tokentap does not remember (unknown, from another session, evicted, before a restart, or stored with store: false) */
  TT_PREVIOUS_RESPONSE_NOT_FOUND: { status: 400, type: 'invalid_request_error', message: 'Previous response not found' },
  /** a session id that is not [A-Za-z0-9._:-]{1,128} */
  TT_INVALID_SESSION: { status: 400, type: 'invalid_request_error', message: 'Invalid session id' },
  /** the backend could not be reached (refused, DNS failure, reset before an answer) */
  TT_BACKEND_UNREACHABLE: { status: 502, type: 'api_error', message: 'Inference backend unreachable' },
  /** the backend did not answer (headers) or went silent (body) within the configured timeout */
  TT_BACKEND_TIMEOUT: { status: 504, type: 'api_error', message: 'Inference backend timed out' },
  /** the backend sent something tokentap cannot read (bad JSON, bad SSE) */
  TT_BACKEND_BAD_RESPONSE: { status: 502, type: 'api_error', message: 'Inference backend sent an unreadable response' },
  /** the backend broke the stream after it started */
  TT_BACKEND_STREAM_CUT: { status: 502, type: 'api_error', message: 'Inference backend closed the stream before it finished' },
  /** the backend answered with an error status; its own message is passed on */
  TT_BACKEND_ERROR: { status: 502, type: 'api_error', message: 'Inference backend error' },
  /** the call could not be written to the store, and the gateway is configured to refuse unrecorded calls */
  TT_RECORDING_FAILED: { status: 503, type: 'api_error', message: 'The call could not be recorded' },
  /** no credential, an unknown session key, a wrong admin token, or no session key under --require-session-key */
  TT_UNAUTHORIZED: { status: 401, type: 'authentication_error', message: 'Missing or invalid credentials' },
  /** a valid credential that may not do this: a session key for another session, or on an admin-only route */
  TT_FORBIDDEN: { status: 403, type: 'permission_error', message: 'This credential may not do that' },
  /** the rollout API named a session that does not exist */
  TT_SESSION_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Session not found' },
  /** POST /tokentap/v1/sessions with the id of a session that already exists */
  TT_SESSION_EXISTS: { status: 409, type: 'invalid_request_error', message: 'A session with this id already exists' },
  /** a model call, or a second end, for a session that has ended */
  TT_SESSION_ENDED: { status: 409, type: 'invalid_request_error', message: 'The session has ended' },
  /** a reward for a call the session does not have */
  TT_CALL_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Call not found' },
  /** the rollout API named a group that does not exist */
  TT_GROUP_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Group not found' },
  /** a group declared again with another size */
  TT_GROUP_CONFLICT: { status: 409, type: 'invalid_request_error', message: 'The group was declared with another size' },
  /** an ack or release for a pull batch tokentap does not know (never leased, or leased before a restart) */
  TT_BATCH_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Batch not found' },
  /** an ack for a pull batch whose lease expired or was released: its groups went back to the pool */
  TT_LEASE_EXPIRED: { status: 409, type: 'invalid_request_error', message: 'The batch lease expired; its groups went back to the pool' },
  /** the gateway is paused for a weight update (pause mode `reject`); retry after `Retry-After` seconds */
  TT_PAUSED: { status: 429, type: 'rate_limit_error', message: 'tokentap is paused for a weight update; retry later' },
  /** more requests than `rateLimit` allows for this session key, admin token or client address; retry after `Retry-After` seconds */
  TT_RATE_LIMITED: { status: 429, type: 'rate_limit_error', message: 'Too many requests; retry later' },
  /** request line and headers larger than `maxHeaderSize` (answered by the HTTP parser, before any route) */
  TT_HEADERS_TOO_LARGE: { status: 431, type: 'request_too_large', message: 'Request headers are larger than the configured limit (maxHeaderSize)' },
  /** the request did not arrive in full within Node's request timeout */
  TT_REQUEST_TIMEOUT: { status: 408, type: 'invalid_request_error', message: 'The request took too long to arrive' },
  /** a request that arrived (on an open connection) while the gateway shuts down, or a call held by a pause then */
  TT_SHUTTING_DOWN: { status: 503, type: 'api_error', message: 'tokentap is shutting down' },
  /** the harness closed its connection before the answer was complete (or a shutdown cut it); recorded only: nobody is left to answer. 499 as nginx's "client closed request" */
  TT_CLIENT_ABORTED: { status: 499, type: 'invalid_request_error', message: 'The harness closed its connection before the answer was complete' },
  /** a Host header that is not a name the gateway answers to (`allowedHosts`; a DNS rebinding guard) */
  TT_HOST_NOT_ALLOWED: { status: 421, type: 'invalid_request_error', message: 'This gateway does not answer for that Host' },
  /** an unexpected failure inside tokentap */
  TT_INTERNAL: { status: 500, type: 'api_error', message: 'Internal error' },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
