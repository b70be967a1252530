/** One row of the error table. */
export interface ErrorCodeEntry {
  /** the HTTP status a front door answers with; absent for codes that never go on the wire as they are (STORE_, EXPORT_, the CLI's) */
  readonly status?: number;
  /** the wire `type` (OpenAI's `error.type`); present exactly where `status` is */
  readonly type?: string;
  /** the default message */
  readonly message: string;
  /** a mistake of whoever asked (a bad request, flag, path or option), not a fault of tokentap: the CLI prints one line and exits 2 */
  readonly userMistake: boolean;
}

/**
 * Every error tokentap itself raises, in one table for every module: gateway codes (`TT_*`, with their HTTP status
 * and wire type), the store's (`STORE_*`) and the exporter's (`EXPORT_*`). docs/errors.md lists the same codes with
 * what to do about each (a test keeps the two in step).
 */
export const ERROR_CODES = {
  /** the body is not JSON, or JSON of the wrong shape */
  TT_INVALID_REQUEST: { status: 400, type: 'invalid_request_error', message: 'Invalid request', userMistake: true },
  /** body larger than --body-limit */
  TT_BODY_TOO_LARGE: { status: 413, type: 'invalid_request_error', message: 'Request body is larger than the configured limit', userMistake: true },
  /** content-type other than application/json */
  TT_UNSUPPORTED_MEDIA_TYPE: { status: 415, type: 'invalid_request_error', message: 'Content-Type must be application/json', userMistake: true },
  /** no such route */
  TT_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Not found', userMistake: true },
  /** a valid request that uses what tokentap cannot translate for the backend (a list of prompts, n > 1 on completions, item references, file inputs, background responses) */
  TT_UNSUPPORTED_FEATURE: {
    status: 400,
    type: 'invalid_request_error',
    message: 'This request uses a feature tokentap does not support',
    userMistake: true,
  },
  /** `previous_response_id` names a response tokentap does not remember (unknown, from another session, evicted, before a restart, or stored with store: false) */
  TT_PREVIOUS_RESPONSE_NOT_FOUND: { status: 400, type: 'invalid_request_error', message: 'Previous response not found', userMistake: true },
  /** a session id that is not [A-Za-z0-9._:-]{1,128} */
  TT_INVALID_SESSION: { status: 400, type: 'invalid_request_error', message: 'Invalid session id', userMistake: true },
  /** the backend could not be reached (refused, DNS failure, reset before an answer) */
  TT_BACKEND_UNREACHABLE: { status: 502, type: 'api_error', message: 'Inference backend unreachable', userMistake: false },
  /** no backend pool serves the model named (after `--model`); the fleet's models are listed on /v1/models */
  TT_MODEL_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'The model is not served by any backend', userMistake: true },
  /** the model's pool has no replica up and undrained (every one down, drained, or already failed this call) */
  TT_BACKEND_UNAVAILABLE: { status: 503, type: 'api_error', message: 'No backend replica is available for this model', userMistake: false },
  /** the drain API names a backend id the fleet does not have */
  TT_BACKEND_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Backend not found', userMistake: true },
  /** the backend did not answer (headers) or went silent (body) within the configured timeout */
  TT_BACKEND_TIMEOUT: { status: 504, type: 'api_error', message: 'Inference backend timed out', userMistake: false },
  /** the backend sent something tokentap cannot read (bad JSON, bad SSE) */
  TT_BACKEND_BAD_RESPONSE: { status: 502, type: 'api_error', message: 'Inference backend sent an unreadable response', userMistake: false },
  /** the backend broke the stream after it started */
  TT_BACKEND_STREAM_CUT: { status: 502, type: 'api_error', message: 'Inference backend closed the stream before it finished', userMistake: false },
  /** the backend answered with an error status; its own message is passed on */
  TT_BACKEND_ERROR: { status: 502, type: 'api_error', message: 'Inference backend error', userMistake: false },
  /** the call could not be written to the store, and the gateway is configured to refuse unrecorded calls */
  TT_RECORDING_FAILED: { status: 503, type: 'api_error', message: 'The call could not be recorded', userMistake: false },
  /** a read or write of the rollout API or the viewer met a store that is away for now (PostgreSQL restarting or unreachable, SQLite busy or its disk full) */
  TT_STORE_UNAVAILABLE: { status: 503, type: 'api_error', message: 'The store cannot be reached now; try again', userMistake: false },
  /** no credential, an unknown session key, a wrong admin token, or no session key under --require-session-key */
  TT_UNAUTHORIZED: { status: 401, type: 'authentication_error', message: 'Missing or invalid credentials', userMistake: true },
  /** a valid credential that may not do this: a session key for another session, or on an admin-only route */
  TT_FORBIDDEN: { status: 403, type: 'permission_error', message: 'This credential may not do that', userMistake: true },
  /** the rollout API named a session that does not exist */
  TT_SESSION_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Session not found', userMistake: true },
  /** POST /tokentap/v1/sessions with the id of a session that already exists */
  TT_SESSION_EXISTS: { status: 409, type: 'invalid_request_error', message: 'A session with this id already exists', userMistake: true },
  /** a model call, or a second end, for a session that has ended */
  TT_SESSION_ENDED: { status: 409, type: 'invalid_request_error', message: 'The session has ended', userMistake: true },
  /** a reward for a call the session does not have */
  TT_CALL_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Call not found', userMistake: true },
  /** the rollout API named a group that does not exist */
  TT_GROUP_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Group not found', userMistake: true },
  /** a group declared again with another size */
  TT_GROUP_CONFLICT: { status: 409, type: 'invalid_request_error', message: 'The group was declared with another size', userMistake: true },
  /** an ack or release for a pull batch tokentap does not know (never leased, or leased before a restart) */
  TT_BATCH_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Batch not found', userMistake: true },
  /** an ack for a pull batch whose lease expired or was released: its groups went back to the pool */
  TT_LEASE_EXPIRED: {
    status: 409,
    type: 'invalid_request_error',
    message: 'The batch lease expired; its groups went back to the pool',
    userMistake: false,
  },
  /** the gateway is paused for a weight update (pause mode `reject`); retry after `Retry-After` seconds */
  TT_PAUSED: { status: 429, type: 'rate_limit_error', message: 'tokentap is paused for a weight update; retry later', userMistake: false },
  /** more requests than `rateLimit` allows for this session key, admin token or client address; retry after `Retry-After` seconds */
  TT_RATE_LIMITED: { status: 429, type: 'rate_limit_error', message: 'Too many requests; retry later', userMistake: false },
  /** request line and headers larger than `maxHeaderSize` (answered by the HTTP parser, before any route) */
  TT_HEADERS_TOO_LARGE: {
    status: 431,
    type: 'request_too_large',
    message: 'Request headers are larger than the configured limit (maxHeaderSize)',
    userMistake: true,
  },
  /** the request did not arrive in full within Node's request timeout */
  TT_REQUEST_TIMEOUT: { status: 408, type: 'invalid_request_error', message: 'The request took too long to arrive', userMistake: false },
  /** a request that arrived (on an open connection) while the gateway shuts down, or a call held by a pause then */
  TT_SHUTTING_DOWN: { status: 503, type: 'api_error', message: 'tokentap is shutting down', userMistake: false },
  /** the harness closed its connection before the answer was complete (or a shutdown cut it); recorded only: nobody is left to answer. 499 as nginx's "client closed request" */
  TT_CLIENT_ABORTED: {
    status: 499,
    type: 'invalid_request_error',
    message: 'The harness closed its connection before the answer was complete',
    userMistake: false,
  },
  /** a Host header that is not a name the gateway answers to (`allowedHosts`; a DNS rebinding guard) */
  TT_HOST_NOT_ALLOWED: { status: 421, type: 'invalid_request_error', message: 'This gateway does not answer for that Host', userMistake: true },
  /** the trajectory viewer's API named a sample index its session does not have under that strategy */
  TT_SAMPLE_NOT_FOUND: { status: 404, type: 'not_found_error', message: 'Sample not found', userMistake: true },
  /** the trajectory viewer's pages were not built into the package (dist/ui/index.html is missing); its API still answers */
  TT_VIEWER_NOT_BUILT: { status: 503, type: 'api_error', message: "The viewer's pages are not built", userMistake: false },
  /** an unexpected failure inside tokentap */
  TT_INTERNAL: { status: 500, type: 'api_error', message: 'Internal error', userMistake: false },

  // never on the wire as they are: a front door answers them as TT_INTERNAL
  /** a command called or configured wrongly (a missing or bad flag, an unreadable config file, no database at the path), or interrupted */
  TT_USAGE: { message: 'Invalid command line or configuration', userMistake: true },
  /**
   * token-faithful mode's `modelDir` cannot render prompts: no such folder, no tokenizer.json or tokenizer_config.json,
   * a file that does not parse, no chat template, or a template that cannot render a one-message conversation
   */
  TT_MODEL_DIR_INVALID: { message: 'the model folder cannot render prompts', userMistake: true },
  /** a library function called with arguments it cannot use: a programming mistake of its caller, not a fault of the data */
  TT_INVALID_ARGUMENT: { message: 'Invalid argument', userMistake: false },

  // the store's refusals (store/); the gateway words the ones a client causes as TT_* (gateway/rollouts/map-store-error.ts)
  /** `finishCall` (or another call lookup that must succeed) was given an id the store does not hold */
  STORE_CALL_NOT_FOUND: { message: 'no call with this id', userMistake: false },
  /** `finishCall` on a call that is no longer `in_progress`: a call is finished exactly once */
  STORE_CALL_ALREADY_FINISHED: { message: 'the call was already finished', userMistake: false },
  /** the file was written by a newer tokentap; an older one must not guess at its schema */
  STORE_SCHEMA_TOO_NEW: { message: 'the database schema is newer than this tokentap', userMistake: true },
  /** the file is older than this tokentap and a read-only open cannot migrate it */
  STORE_SCHEMA_OUTDATED: { message: 'the database schema is older than this tokentap; open it read-write once', userMistake: true },
  /** read-only open of a file that does not exist or was never migrated */
  STORE_NOT_INITIALIZED: { message: 'the database does not exist or was never initialized', userMistake: true },
  /** a write on a store opened with `readonly: true` */
  STORE_READONLY: { message: 'the store was opened read-only', userMistake: false },
  /** input that cannot be stored exactly (e.g. token ids outside Int32) */
  STORE_INVALID_INPUT: { message: 'the input cannot be stored exactly', userMistake: false },
  /** stored data that contradicts itself (a missing prompt parent, a bad body reference) */
  STORE_CORRUPT: { message: 'the stored data is inconsistent', userMistake: false },
  /** a rollout operation named a session the store does not hold */
  STORE_SESSION_NOT_FOUND: { message: 'no session with this id', userMistake: false },
  /** `createRollout` with the id of a session that already exists (made by the API or by a call) */
  STORE_SESSION_EXISTS: { message: 'a session with this id already exists', userMistake: false },
  /** `endSession` on a session that already ended: a session ends once */
  STORE_SESSION_ENDED: { message: 'the session has already ended', userMistake: false },
  /** `declareGroup` with another size than the group was declared with */
  STORE_GROUP_CONFLICT: { message: 'the group was declared with another size', userMistake: false },
  /** the database file could not be opened at all */
  STORE_OPEN_FAILED: { message: 'the database could not be opened', userMistake: false },
  /** the database path is a folder, or a file that is not SQLite (a README, a dataset) */
  STORE_NOT_A_DATABASE: { message: 'the database path is not a database file', userMistake: true },
  /** the database path's folder does not exist or is a file (a writable open creates the file, never its folder) */
  STORE_NO_FOLDER: { message: 'the folder of the database path does not exist', userMistake: true },
  /**
   * `tokentap migrate --from --to` will not copy: the PostgreSQL database holds other data (or a finished copy), a
   * gateway is live on the source, or the two schemas differ (docs/scale-out.md)
   */
  STORE_COPY_REFUSED: { message: 'the store cannot be copied into this database', userMistake: true },
  /** a copied store does not match its source: a call's ids, a session or a table's row count differ */
  STORE_COPY_MISMATCH: { message: 'the copy does not match its source', userMistake: false },
  /** a postgres:// store whose server cannot be reached, refuses the login, or has no such database */
  STORE_DATABASE_UNREACHABLE: { message: 'the PostgreSQL database could not be reached', userMistake: true },

  // the exporter's (export/, trainer-adapters/); nothing has been written when a user's mistake is thrown
  /** a dataset path whose extension is neither `.jsonl` nor `.parquet` */
  EXPORT_BAD_EXTENSION: { message: 'the dataset path must end in .jsonl or .parquet', userMistake: true },
  /** a dataset path where a file already is, without `force` (or one that appeared while the export ran) */
  EXPORT_PATH_EXISTS: { message: 'the dataset path already exists', userMistake: true },
  /** a dataset path whose folder does not exist */
  EXPORT_NO_PARENT_DIR: { message: 'the folder of the dataset path does not exist', userMistake: true },
  /** a dataset path that cannot be written: a folder, or in a folder that refuses new files (permissions, read-only, /proc) */
  EXPORT_PATH_NOT_WRITABLE: { message: 'the dataset path cannot be written', userMistake: true },
  /** an unknown trainer format or shape, or a shape for a format that has none */
  EXPORT_UNKNOWN_FORMAT: { message: 'unknown trainer format or shape', userMistake: true },
  /** a filter, advantage or strategy option that is not valid (a bad value, or one given twice) */
  EXPORT_INVALID_OPTION: { message: 'Invalid export options', userMistake: true },
  /** `modelDir` names a folder without a tokenizer.json */
  EXPORT_NO_TOKENIZER: { message: 'no tokenizer.json in the model folder', userMistake: true },
  /** a row value a writer cannot store faithfully (NaN or Infinity, a wrong type for its column, null where not nullable) */
  EXPORT_INVALID_VALUE: { message: 'a row value cannot be written faithfully', userMistake: false },
  /** a rewards file (`--rewards FILE`) with lines that cannot be used: no JSON object, an unknown session, a reward outside the reward rule */
  EXPORT_INVALID_REWARDS: { message: 'the rewards file has lines that cannot be used', userMistake: true },
  /** `failOnEmpty` (`--fail-on-empty`) and the selection yields no sample: nothing is written (`details.summary` says what was dropped) */
  EXPORT_EMPTY: { message: 'the export holds no sample', userMistake: false },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes a front door answers with their own HTTP status and wire type (the `TT_*` codes that have one). */
export type HttpErrorCode = { [Code in ErrorCode]: (typeof ERROR_CODES)[Code] extends { status: number } ? Code : never }[ErrorCode];

/** The store's codes. */
export type StoreErrorCode = Extract<ErrorCode, `STORE_${string}`>;

/** The exporter's codes. */
export type ExportErrorCode = Extract<ErrorCode, `EXPORT_${string}`>;

/**
 * True when `code` has an HTTP status of its own, so a front door may send it as it is.
 *
 * @example isHttpErrorCode('TT_SESSION_NOT_FOUND') // true; isHttpErrorCode('STORE_CORRUPT') // false
 */
export function isHttpErrorCode(code: string): code is HttpErrorCode {
  return (ERROR_CODES as Record<string, ErrorCodeEntry | undefined>)[code]?.status !== undefined;
}

/**
 * True when `code` is a mistake of whoever asked rather than a fault of tokentap (the CLI's exit 2).
 *
 * @example isUserMistakeCode('EXPORT_PATH_EXISTS') // true; isUserMistakeCode('STORE_CORRUPT') // false
 */
export function isUserMistakeCode(code: string): boolean {
  return (ERROR_CODES as Record<string, ErrorCodeEntry | undefined>)[code]?.userMistake === true;
}
