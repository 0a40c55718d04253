import type { FastifyBaseLogger } from 'fastify';
import { nowIso } from '../core/clock.js';
import { postSignedJson } from '../outbound/signed-request.js';
import { Errors } from '../core/errors.js';
import type { TaskDestinations } from '../outbound/task-destinations.js';
import { verificationPayload } from './task-request-payload.js';

const POINTER = '/data/attributes/url';

/** Where a URL points, for the log: its origin only (a query string may hold the task's own secret). */
function origin(url: string): string {
  return new URL(url).origin;
}

/**
 * Creating a run task, or changing its URL, sends one signed verification request; anything but a 200
 * within the request timeout refuses the change with a 422. Not retried: the person
 * saving the task is waiting for the answer.
 *
 * The 422 never tells what the remote answered or how the connection failed — told apart, those would
 * make verification a scanner of whatever the server can reach (open, closed and filtered ports,
 * internal status codes). The server log has them for the operator. Only a refusal by the operator's
 * URL policy for an address the caller typed is explained, since it reveals nothing the caller did not send.
 */
export class TaskVerifier {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutSeconds: number,
    private readonly destinations: TaskDestinations,
    private readonly log: FastifyBaseLogger,
  ) {}

  async verify(url: string, hmacKey: string | null, organizationName: string): Promise<void> {
    const literal = this.destinations.verdictWithoutLookup(url);
    if (literal && !literal.allowed) {
      this.log.warn({ organization: organizationName, destination: origin(url), reason: literal.reason }, 'run task URL refused by the URL policy');
      throw Errors.taskUrlNotAllowed(literal.reason);
    }
    const body = JSON.stringify(verificationPayload(this.baseUrl, organizationName, nowIso()));
    const result = await postSignedJson(url, body, hmacKey, this.timeoutSeconds * 1000, this.destinations.dispatcher);
    if ('status' in result && result.status === 200) return;
    const outcome = 'status' in result ? { httpStatus: result.status } : { error: `${result.error}: ${result.detail}` };
    this.log.warn({ organization: organizationName, destination: origin(url), ...outcome }, 'run task verification failed');
    throw Errors.taskUrlNotVerified(this.timeoutSeconds);
  }
}
