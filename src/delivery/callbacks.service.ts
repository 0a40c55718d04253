import { nowIso } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { Errors } from '../core/errors.js';
import { httpUrlProblem } from '../runtasks/run-task-rules.js';
import { isFinalResultStatus } from '../taskstages/stage-status.js';
import type { ResultReport, TaskStageRunner } from '../taskstages/task-stage-runner.js';
import type { ResultInOrganization, TaskResultRow, TaskStagesRepository } from '../taskstages/task-stages.repository.js';
import type { TaskResultTokens } from './access-tokens.js';

export interface OutcomeInput {
  'outcome-id': string;
  description: string;
  body?: string | null;
  url?: string | null;
  tags?: Record<string, Array<{ label: string; level?: string }>>;
}

export interface CallbackInput {
  status: 'running' | 'passed' | 'failed';
  message?: string | null;
  url?: string | null;
  outcomes?: OutcomeInput[];
}

const AUTHORIZED = Symbol('authorized callback');

/**
 * The links a task reports are shown to everyone who reads the result, so they must be http(s) links
 * (no javascript:, data: or file:, no credentials, no control characters). Null or an empty string is
 * no link: some integrations send "" when they have none.
 */
function checkReportedLinks(input: CallbackInput): void {
  const check = (url: string | null | undefined, pointer: string) => {
    const problem = url ? httpUrlProblem(url) : undefined;
    if (problem) throw Errors.invalidReportedLink(pointer, problem);
  };
  check(input.url, '/data/attributes/url');
  input.outcomes?.forEach((outcome, index) => check(outcome.url, `/data/relationships/outcomes/data/${index}/attributes/url`));
}

/** Proof that `authorize` accepted the token for this result (only it can make one). */
export interface AuthorizedCallback {
  resultId: string;
  /** The result as read with the token. */
  seen: ResultInOrganization;
  [AUTHORIZED]: true;
}

/**
 * `PATCH /task-results/:id/callback`: authenticated by the result's access token alone
 * (401 otherwise), 409 once the result is final, then `running` (refreshing the callback deadline) or
 * a final `passed`/`failed` that may settle the stage.
 */
export class TaskCallbacks {
  constructor(
    private readonly stages: TaskStagesRepository,
    private readonly accessTokens: TaskResultTokens,
    private readonly runner: TaskStageRunner,
  ) {}

  /**
   * Checked before the body is looked at: unknown result 404, wrong token 401, final result 409. The
   * answer is what `callback` takes, so a callback is authorized exactly once. The token's own row tells
   * the result and its status; the result is looked up only to tell 404 from 401.
   */
  async authorize(token: string | undefined, resultId: string): Promise<AuthorizedCallback> {
    const grant = await this.accessTokens.grantOf(token);
    if (!grant || grant.taskResultId !== resultId) {
      if (!(await this.stages.findResult(resultId))) throw Errors.taskResultNotFound();
      throw Errors.taskResultTokenInvalid();
    }
    if (isFinalResultStatus(grant.resultStatus)) throw Errors.taskResultFinal(grant.resultStatus);
    return { resultId, seen: grant.result, [AUTHORIZED]: true };
  }

  async callback(authorized: AuthorizedCallback, input: CallbackInput): Promise<TaskResultRow> {
    const { resultId, seen } = authorized;
    checkReportedLinks(input);
    const report: ResultReport = {};
    if (input.message !== undefined) report.message = input.message;
    if (input.url !== undefined) report.url = input.url;
    if (input.outcomes !== undefined) {
      const createdAt = nowIso();
      report.outcomes = input.outcomes.map((outcome, position) => ({
        id: newId('outcome'),
        position,
        outcome_id: outcome['outcome-id'],
        description: outcome.description,
        body: outcome.body ?? null,
        url: outcome.url ?? null,
        tags: JSON.stringify(outcome.tags ?? {}),
        created_at: createdAt,
      }));
    }
    const finished = input.status === 'running' ? await this.runner.markRunning(resultId, report, seen) : await this.runner.finishResult(resultId, input.status, report);
    if (finished.outcome === 'missing') throw Errors.taskResultNotFound();
    if (finished.outcome === 'final') throw Errors.taskResultFinal(finished.result.status);
    // The row as the callback's transaction wrote it: no second read.
    return finished.result;
  }
}
