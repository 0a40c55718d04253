import { nowIso } from '../clock.js';
import { postSignedJson } from '../delivery/signed-request.js';
import { InvalidAttribute } from '../http/errors.js';
import { verificationPayload } from './task-request-payload.js';

/**
 * Creating a run task, or changing its URL, sends one signed verification request; anything but a 200
 * within the request timeout refuses the change with a 422 that says why (CONTRACT 7). Not retried:
 * the person saving the task is waiting for the answer.
 */
export class TaskVerifier {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutSeconds: number,
  ) {}

  async verify(url: string, hmacKey: string | null, organizationName: string): Promise<void> {
    const body = JSON.stringify(verificationPayload(this.baseUrl, organizationName, nowIso()));
    const result = await postSignedJson(url, body, hmacKey, this.timeoutSeconds * 1000);
    const pointer = '/data/attributes/url';
    if ('error' in result) {
      const why = result.error === 'timeout' ? 'timed out' : 'could not reach the run task';
      throw new InvalidAttribute(pointer, `verification request to ${url} failed: ${why} (${result.detail}); the run task must answer 200`);
    }
    if (result.status !== 200) {
      throw new InvalidAttribute(pointer, `verification request to ${url} failed: the run task answered ${result.status}; it must answer 200`);
    }
  }
}
