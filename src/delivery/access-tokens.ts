import { randomBytes } from 'node:crypto';
import { hashToken, tokenMatchesHash } from '../identity/token-secrets.js';
import { isFinalResultStatus } from '../taskstages/stage-status.js';
import type { DeliveryRepository } from './delivery.repository.js';
import type { ResultInOrganization } from '../taskstages/task-stages.repository.js';

/**
 * The per-result access token of the run task protocol: 32 random bytes, sent once in the request body, stored only
 * as a SHA-256 digest (as every token here). Each delivery attempt gets a fresh token and every issued
 * token of the result stays valid: a service that received an attempt we believed timed out can still
 * call back. The token authorizes that result's callback and, until the result is final, its run's
 * configuration and plan downloads; nothing else. Answers the token and its digest.
 */
export function newAccessToken(): { token: string; digest: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, digest: hashToken(token) };
}

export interface AccessTokenGrant {
  taskResultId: string;
  runId: string;
  resultStatus: string;
  /** The result as read with the token (a callback may write from it while it is unchanged). */
  result: ResultInOrganization;
}

export class TaskResultTokens {
  constructor(private readonly repository: DeliveryRepository) {}

  /** The result a token was issued for, or undefined; the digest is compared in constant time. */
  async grantOf(token: string | undefined): Promise<AccessTokenGrant | undefined> {
    if (!token || token.length > 512) return undefined;
    const digest = hashToken(token);
    const row = await this.repository.findAccessToken(digest);
    if (!row || !tokenMatchesHash(token, row.token_hash)) return undefined;
    const { token_hash: _, task_result_id: __, result_status: ___, ...result } = row;
    return { taskResultId: row.task_result_id, runId: row.run_id, resultStatus: row.result_status, result };
  }

  /**
   * Whether the token belongs to a result of this run that is not final yet: only then may it download
   * the run's configuration and plan.
   */
  async authorizeDownload(token: string | undefined, runId: string): Promise<boolean> {
    const grant = await this.grantOf(token);
    return grant !== undefined && grant.runId === runId && !isFinalResultStatus(grant.resultStatus);
  }
}
