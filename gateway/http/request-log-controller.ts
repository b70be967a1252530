import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * fastify's own per-request lines at debug: a model call is logged once, at info, when it ends (calls/log-call-ends.ts),
 * and a request that is no call (`/healthz`, `/metrics`, the rollout API) is no news unless it fails, which its
 * scope's error handler logs (STYLE.md section 7: one info line per call). Before (issue 14), every request wrote
 * `incoming request` and `request completed` at info, and a harness's client leaving a stream one more.
 *
 * @example fastify({ loggerInstance: logger, logController: new RequestLogController() })
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // the response itself failed (a socket error while writing): fastify's line, at error, as it was
    if (error) super.requestCompleted(error, request, reply);
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // a client that left mid-stream: its call is recorded (and logged) aborted
    if ((error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') reply.log.debug({ res: reply }, 'stream closed prematurely');
    else super.streamError(error, request, reply);
  }
}
