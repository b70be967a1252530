import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { fromFastifyError } from './from-fastify-error.js';
import { isCallRequest } from './mark-call-request.js';

/** A failure as one protocol answers it: the HTTP status and the body in that protocol's error shape. */
export interface ErrorAnswer {
  status: number;
  body: unknown;
}

export interface ErrorHandlerOptions {
  /** the protocol's own answer to a failure (OpenAI's, Anthropic's, the rollout API's) */
  answer(failure: TokentapError): ErrorAnswer;
  /** what the log lines call a request of this scope: `${logSubject} failed` / `${logSubject} rejected`; default 'request' */
  logSubject?: string;
}

/** One protocol's error door: where its failures become responses. */
export interface ErrorHandler {
  /** makes this the error handler and the not-found handler of a fastify scope (unknown routes under it included) */
  setOn(scope: FastifyInstance): void;
  /** answers a failure on a reply not sent yet, in this protocol's shape (what the router refuses before any scope runs) */
  send(reply: FastifyReply, failure: TokentapError): void;
}

/**
 * The one place where errors become responses, for every scope: each protocol passes its own answer, so a failure
 * leaves in the shape its client reads. fastify's own failures (bad JSON, size, media type) are turned into
 * TokentapErrors first; a stream already under way has its own error event (the renderer's renderStreamError), so
 * a reply already sent is only logged.
 *
 * @example
 * const errors = createErrorHandler({ answer: (failure) => ({ status: failure.status, body: toOpenAiErrorBody(failure) }) });
 * app.register(async (scope) => { errors.setOn(scope); ... }, { prefix: '/v1' });
 */
export function createErrorHandler(options: ErrorHandlerOptions): ErrorHandler {
  const subject = options.logSubject ?? 'request';
  const send = (reply: FastifyReply, failure: TokentapError): void => {
    const { status, body } = options.answer(failure);
    void reply.code(status).send(body);
  };
  return {
    send,
    setOn(scope) {
      scope.setErrorHandler((error, request, reply) => {
        const failure = fromFastifyError(error as FastifyError);
        // a recorded call's failure is in its `call ended` line (one info line per call); here only at debug
        if (isCallRequest(request)) request.log.debug({ err: error, code: failure.code }, `${subject} failed`);
        else if (failure.status >= 500) request.log.warn({ err: error, code: failure.code }, `${subject} failed`);
        else request.log.info({ code: failure.code, message: failure.message }, `${subject} rejected`);
        if (reply.sent || reply.raw.headersSent) return;
        send(reply, failure);
      });
      scope.setNotFoundHandler((request, reply) => {
        const failure = new TokentapError('TT_NOT_FOUND', { message: `No route for ${request.method} ${request.url.split('?')[0]}` });
        // fastify's request lines are at debug: a harness pointed at a wrong path is still seen at info
        request.log.info({ code: failure.code, message: failure.message }, `${subject} rejected`);
        send(reply, failure);
      });
    },
  };
}
