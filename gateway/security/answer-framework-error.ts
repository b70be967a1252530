import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { TokentapError } from '../../core/errors/tokentap-error.js';
import { toAdminErrorBody } from '../admin/admin-error-handler.js';
import { toAnthropicError } from '../protocols/anthropic-messages/anthropic-error-body.js';
import { toOpenAiErrorBody } from '../errors/openai-error-body.js';

/** The longest path parameter the router takes; session and group ids are at most 128 characters. */
export const MAX_PARAM_LENGTH = 256;

/** Anthropic Messages routes, with or without a session in the path. */
const ANTHROPIC_PATH = /^(?:\/s\/[^/]*)?\/v1\/messages(?:[/?]|$)/;

/**
 * Answers what fastify's router refuses before any route or error handler runs (a malformed percent-encoding, a
 * path parameter over MAX_PARAM_LENGTH) with 400 TT_INVALID_REQUEST in the protocol shape the path belongs to:
 * the rollout API's under /tokentap/, Anthropic's under /v1/messages, OpenAI's elsewhere. Without this, fastify
 * answers in its own shape, which no client reads.
 *
 * @example fastify({ maxParamLength: MAX_PARAM_LENGTH, frameworkErrors: answerFrameworkError })
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? `A path segment is longer than ${MAX_PARAM_LENGTH} characters (session and group ids are at most 128)`
    : 'The URL is not valid (a malformed percent-encoding)';
  const failure = new TokentapError('TT_INVALID_REQUEST', { message });
  request.log.info({ code: failure.code, fastifyCode: error.code }, 'request rejected by the router');
  const path = request.raw.url ?? '';
  if (path.startsWith('/tokentap/')) {
    void reply.code(failure.status).send(toAdminErrorBody(failure));
  } else if (ANTHROPIC_PATH.test(path)) {
    const { status, body } = toAnthropicError(failure);
    void reply.code(status).send(body);
  } else {
    void reply.code(failure.status).send(toOpenAiErrorBody(failure));
  }
}
