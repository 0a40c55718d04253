import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Dispatcher } from 'undici';
import { nowIso } from '../core/clock.js';
import type { Database } from '../db/schema.js';
import type { Jobs } from '../jobs/jobs.js';
import { isFinalResultStatus } from '../taskstages/stage-status.js';
import { deliveryJob, JOB_KINDS, type TaskStageRunner } from '../taskstages/task-stage-runner.js';
import { newAccessToken } from './access-tokens.js';
import type { DeliveryContext } from './delivery-context.js';
import type { AttemptEnd, DeliveryRepository } from './delivery.repository.js';
import { postSignedJson, type SignedPostResult } from '../outbound/signed-request.js';
import { buildTaskPayload } from './task-payload.js';

type AttemptOutcome = 'accepted' | 'rejected' | 'network_error';

interface AttemptRecord {
  outcome: AttemptOutcome;
  httpStatus: number | null;
  error: string | null;
}

function classify(answer: SignedPostResult): AttemptRecord {
  if ('status' in answer) {
    return answer.status === 200
      ? { outcome: 'accepted', httpStatus: 200, error: null }
      : { outcome: 'rejected', httpStatus: answer.status, error: `answered ${answer.status}` };
  }
  return { outcome: 'network_error', httpStatus: null, error: `${answer.error}: ${answer.detail}` };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

/** The settings delivery needs (from config.ts, passed in services.ts: a domain does not read configuration). */
export interface DeliverySettings {
  /** This server's address, as the task's callback and links see it. */
  baseUrl: string;
  tasks: { callbackTimeoutSeconds: number; maxDurationSeconds: number; retryDelaysSeconds: number[]; requestTimeoutSeconds: number };
}

/**
 * Outbound run task requests and their deadlines, as durable jobs, so that a restart or a dead node
 * never loses or duplicates a final status:
 *
 * - `task-result.deliver` {resultId, attempt}: one signed POST. A non-200 or network error schedules the
 *   next attempt as a new job after the configured delay; after the last one the result is `unreachable`
 *   (network error or timeout) or `errored` (non-200). Every attempt is a row in delivery_attempts.
 * - `task-result.callback-timeout` {resultId}: no callback since the last update → `errored`.
 * - `task-result.max-duration` {resultId}: not final this long after the stage started → `errored`.
 *
 * Handlers are idempotent: a job that runs again after a crash re-reads the state, never sends for a
 * final result, and only conditional writes (TaskStageRunner) change statuses.
 */
export class TaskDelivery {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly repository: DeliveryRepository,
    private readonly runner: TaskStageRunner,
    private readonly jobs: Jobs,
    private readonly config: DeliverySettings,
    private readonly log: FastifyBaseLogger,
    /** SQLite group commit: the token and attempt record must be on disk before the task can use them. */
    private readonly durable: () => Promise<void> = async () => {},
    /** Where task requests may connect (TaskDestinations): a refused address is a network error of the attempt. */
    private readonly dispatcher: Dispatcher,
  ) {}

  private readonly attemptListeners: Array<(outcome: AttemptOutcome, seconds: number) => void> = [];

  /** Tells `listener` of every request's end (its outcome and duration), for metrics. */
  onAttempt(listener: (outcome: AttemptOutcome, seconds: number) => void): void {
    this.attemptListeners.push(listener);
  }

  register(): void {
    this.jobs.register(JOB_KINDS.deliver, (payload: { resultId: string; attempt: number }, { stop }) => this.deliver(payload.resultId, payload.attempt, stop));
    this.jobs.register(JOB_KINDS.callbackTimeout, (payload: { resultId: string }) => this.callbackTimeout(payload.resultId));
    this.jobs.register(JOB_KINDS.maxDuration, (payload: { resultId: string }) => this.maxDuration(payload.resultId));
  }

  /** How many requests a result gets at most: the first and one per retry delay. */
  get maxAttempts(): number {
    return 1 + this.config.tasks.retryDelaysSeconds.length;
  }

  /**
   * `stop` aborts when the node stops with this request still open: the attempt is then left unfinished
   * (its row reused when the job runs again), nothing is recorded and the job is handed to another node,
   * which sends the same attempt again.
   */
  async deliver(resultId: string, attempt: number, stop?: AbortSignal): Promise<void> {
    const found = await this.repository.contextWithAttempt(resultId, attempt);
    // Only a pending result of a running stage is sent: final ones never, and a `running` one has
    // evidently reached the task already (it called back), so a retry would only duplicate it.
    if (!found || found.context.resultStatus !== 'pending' || found.context.stageStatus !== 'running') return;
    const { context, recorded } = found;
    if (recorded?.finishedAt && recorded.outcome) {
      // This attempt went out before a crash; only its consequences may be missing.
      await this.afterAttempt(context, attempt, { outcome: recorded.outcome, httpStatus: recorded.httpStatus, error: recorded.error });
      return;
    }
    // One write (one commit) for the last look, the access token and the attempt record: a result that
    // became final meanwhile is never sent. The token is recorded only on a pending result, and that
    // conditional write is the last look. It needs no stage lock: it does not change the status, and on
    // PostgreSQL it waits for a finisher holding the result's row and then re-checks the status.
    const { token, digest } = newAccessToken();
    const attemptId = await this.repository.startDelivery({ resultId, runId: context.runId, tokenHash: digest, attempt, url: context.taskUrl });
    if (!attemptId) return;
    const body = JSON.stringify(buildTaskPayload(context, token, this.config.baseUrl));
    await this.durable();
    const startedAt = performance.now();
    const answer = await postSignedJson(context.taskUrl, body, context.hmacKey, this.config.tasks.requestTimeoutSeconds * 1000, this.dispatcher, stop);
    if (stop?.aborted) throw new Error('delivery abandoned: the node is stopping');
    const durationMs = performance.now() - startedAt;
    const record = classify(answer);
    for (const listener of this.attemptListeners) listener(record.outcome, durationMs / 1000);
    if (record.outcome !== 'accepted') {
      // An operator's signal (a task service down, a URL the policy refuses): warn, with where it went and
      // for whom. The host only: a task URL's path or query may carry a credential of the service's.
      this.log.warn(
        {
          taskResultId: resultId, runId: context.runId, organization: context.organizationName, destination: hostOf(context.taskUrl),
          attempt, of: this.maxAttempts, outcome: record.outcome, httpStatus: record.httpStatus, error: record.error,
        },
        'run task request failed',
      );
    }
    await this.recordAnswer(attemptId, context, { ...record, durationMs });
    if (record.outcome !== 'accepted') await this.afterAttempt(context, attempt, record);
  }

  /** The attempt's end and, when accepted, the fresh callback deadline (markDelivered), atomically. */
  private async recordAnswer(attemptId: string, { resultId, organizationName }: DeliveryContext, end: AttemptEnd): Promise<void> {
    if (end.outcome !== 'accepted') {
      await this.repository.finishAttempt(attemptId, end);
      return;
    }
    const now = nowIso();
    await this.repository.finishAcceptedAttempt(attemptId, end, { resultId, now, timeoutJob: this.runner.callbackTimeoutJob(resultId, now, organizationName) }, (trx) =>
      this.runner.markDelivered(trx, resultId, organizationName),
    );
  }

  private async afterAttempt(context: DeliveryContext, attempt: number, record: AttemptRecord): Promise<void> {
    if (record.outcome === 'accepted') {
      await this.db.transaction().execute((trx) => this.runner.markDelivered(trx, context.resultId, context.organizationName));
      return;
    }
    if (attempt < this.maxAttempts) {
      const delaySeconds = this.config.tasks.retryDelaysSeconds[attempt - 1]!;
      await this.jobs.enqueue(
        this.db,
        deliveryJob(context.resultId, attempt + 1, context.organizationName, new Date(Date.now() + delaySeconds * 1000)),
      );
      return;
    }
    const tries = `${attempt} ${attempt === 1 ? 'attempt' : 'attempts'}`;
    // A task that called back `running` despite the failed answers is working: its deadlines decide.
    const stillPending = (fresh: { status: string }) => fresh.status === 'pending';
    if (record.outcome === 'network_error') {
      await this.runner.finishResult(context.resultId, 'unreachable', { message: `The task could not be reached after ${tries} (${record.error}).` }, stillPending);
    } else {
      await this.runner.finishResult(context.resultId, 'errored', { message: `The task answered ${record.httpStatus} instead of 200 after ${tries}.` }, stillPending);
    }
  }

  async callbackTimeout(resultId: string): Promise<void> {
    const limitMs = this.config.tasks.callbackTimeoutSeconds * 1000;
    const due = (updatedAt: string) => Date.now() >= Date.parse(updatedAt) + limitMs;
    const { outcome } = await this.runner.finishResult(
      resultId,
      'errored',
      { message: `No callback from the task within ${this.config.tasks.callbackTimeoutSeconds} s.` },
      (fresh) => due(fresh.updated_at),
    );
    if (outcome !== 'final') return;
    // Declined: either final (nothing to do) or refreshed since this job was planned; make sure a job covers the new deadline.
    const status = await this.repository.resultStatus(resultId);
    const context = status && !isFinalResultStatus(status) ? await this.repository.context(resultId) : undefined;
    if (context && !due(context.resultUpdatedAt)) await this.runner.scheduleCallbackTimeout(this.db, resultId, context.resultUpdatedAt, context.organizationName);
  }

  async maxDuration(resultId: string): Promise<void> {
    await this.runner.finishResult(resultId, 'errored', {
      message: `The task did not finish within ${this.config.tasks.maxDurationSeconds} s.`,
    });
  }
}
