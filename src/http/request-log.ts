import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One access-log line per request, written when the response is done: method, path, address, status and
 * time taken. Fastify's default writes two (one on arrival, one at the end); under load that second line
 * cost a tenth of a read's CPU (issue 18). Errors keep Fastify's own lines (`request errored`, the error
 * handler's). Headers are never logged (they carry tokens and signatures), nor the query string, which
 * may carry a search.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { method: request.method, url: request.url.split('?', 1)[0], remoteAddress: request.ip, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
