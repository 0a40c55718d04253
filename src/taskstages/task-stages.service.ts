import type { OrganizationStanding } from '../access/organization-standing.js';
import type { AuditTrailRecorder } from '../record/audit-trail-recorder.js';
import { decisionRefused, stageOverridden } from '../record/run-decision-audit.js';
import { overrideCallerOf } from '../access/task-stage-permissions.js';
import { approverStandings } from '../access/approver-standings.js';
import { overrideStanding, type OverrideCaller } from '../shared/override-rule.js';
import { overrideFactsOf, type ApproverLookup, type ApproverStandings } from './override-facts.js';
import { requireAccess } from '../access/require-access.js';
import { HIDDEN_AS } from '../access/access-table.js';
import { ApiError, Errors } from '../core/errors.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { TaskStagePermissions } from '../access/task-stage-permissions.js';
import type { PolicyEvaluationRow, PolicyEvaluationsRepository, PolicySetOutcomeRow } from './policy-evaluations.repository.js';
import type { Principal } from '../core/principal.js';
import type { WorkspaceGate } from '../access/workspace-gate.js';
import type { VisibleRun } from '../runs/runs.service.js';
import type { StageOverrides } from './stage-override.js';
import type { OutcomeRow, OverrideRow, RunApprovalSettings, TaskResultRow, TaskStageRow, TaskStagesRepository } from './task-stages.repository.js';
import { actorOf, type Actor } from '../record/actor.js';
import { parseTimestamps, timestampKey } from '../core/status-timestamps.js';
import { provenVisible, type Visible } from '../access/lookup-proofs.js';

export type TaskStageInclude = 'run' | 'run.workspace' | 'task-results' | 'policy-evaluations';
export const TASK_STAGE_INCLUDES: readonly TaskStageInclude[] = ['run', 'run.workspace', 'task-results', 'policy-evaluations'];

/** A task stage with the ids of its results and policy evaluations, and what the caller may do to it. */
/** Who overrode a stage, and how many distinct overrides it needs ("n of N"). */
export interface StageApprovals {
  required: number;
  /** Distinct overriders so far. */
  given: number;
  overrides: OverrideRow[];
}

export interface TaskStageView {
  stage: TaskStageRow;
  resultIds: string[];
  evaluationIds: string[];
  permissions: TaskStagePermissions;
  /** Its overrides and how many distinct people it needs (issue 27); absent where not read. */
  approvals?: StageApprovals;
}

/** `filter[n][status]` and `filter[n][enforcement_level]` of the policy set outcomes list: each pair narrows the outcomes shown. */
export interface OutcomeFilter {
  status?: string;
  enforcementLevel?: string;
}

/** A task stage the caller may see, with the caller's standing in its organization. */
export interface VisibleStage {
  stage: TaskStageRow;
  standing: OrganizationStanding;
}

/** A task stage and its results (`include=run` is read from the run side by the HTTP layer). */
export interface TaskStageDetails {
  stage: TaskStageView;
  results: TaskResultRow[];
  evaluations: PolicyEvaluationRow[];
}

/**
 * Listing and showing stages and results, outcomes, and the override.
 * The caller is checked first: a run the caller may not read is 404, so its existence does not leak;
 * a stage the caller can see but may not override is 403.
 */
export class TaskStagesService {
  constructor(
    private readonly stages: TaskStagesRepository,
    private readonly workspaceGate: WorkspaceGate,
    private readonly overrides: StageOverrides,
    private readonly evaluations: PolicyEvaluationsRepository,
    private readonly auditTrail: AuditTrailRecorder,
  ) {}

  async listForRun(found: VisibleRun, page: PageRequest): Promise<Page<TaskStageView>> {
    const { rows, total } = await this.stages.stagesOfRun(found.run.id, page.offset, page.size);
    return pageOf(page, await this.stageViews(found.context.standing, rows), total);
  }

  async show(found: VisibleStage): Promise<TaskStageDetails> {
    const { stage, standing } = found;
    const results = await this.stages.resultsOfStages([stage.id]);
    const evaluations = await this.evaluations.ofStages([stage.id]);
    const [view] = await this.stageViews(standing, [stage]);
    return { stage: view!, results, evaluations };
  }

  /** `GET /task-stages/:id/policy-evaluations`. */
  async policyEvaluations(found: VisibleStage, page: PageRequest): Promise<Page<PolicyEvaluationRow>> {
    const all = await this.evaluations.ofStages([found.stage.id]);
    return pageOf(page, all.slice(page.offset, page.offset + page.size), all.length);
  }

  /** `GET /policy-evaluations/:id/policy-set-outcomes`: with filters, each set shows only the outcomes they match. */
  async policySetOutcomes(evaluation: Visible<PolicyEvaluationRow>, page: PageRequest, filters: OutcomeFilter[]): Promise<Page<PolicySetOutcomeRow>> {
    // A set none of whose outcomes match is not listed (HCP's rule), so the filtered count is the page's total.
    const all = (await this.evaluations.outcomesOf(evaluation.id)).map((row) => filterOutcomes(row, filters)).filter((row) => row !== undefined);
    return pageOf(page, all.slice(page.offset, page.offset + page.size), all.length);
  }

  /** The lookup of a policy evaluation: 404 when missing or when the caller may not read its run. */
  async visibleEvaluation(principal: Principal, evaluationId: string): Promise<Visible<PolicyEvaluationRow>> {
    const evaluation = await this.evaluations.find(evaluationId);
    if (!evaluation) throw Errors.policyEvaluationNotFound();
    await this.standingForRun(principal, evaluation.run_id, 'policy-evaluation');
    return provenVisible(evaluation);
  }

  /** The lookup of a policy set outcome, likewise. */
  async visibleSetOutcome(principal: Principal, outcomeId: string): Promise<Visible<PolicySetOutcomeRow>> {
    const outcome = await this.evaluations.findOutcome(outcomeId);
    const evaluation = outcome ? await this.evaluations.find(outcome.policy_evaluation_id) : undefined;
    if (!outcome || !evaluation) throw Errors.policySetOutcomeNotFound();
    await this.standingForRun(principal, evaluation.run_id, 'policy-set-outcome');
    return provenVisible(outcome);
  }

  async outcomes(result: Visible<TaskResultRow>, page: PageRequest): Promise<Page<OutcomeRow>> {
    const { rows, total } = await this.stages.outcomes(result.id, page.offset, page.size);
    return pageOf(page, rows, total);
  }

  /**
   * `found` is the route's `task-stage` lookup. The override rule (shared/override-rule.ts) decides on the stage
   * as it is under its lock, every earlier approval counted again with its overrider's standing now: the access
   * table turns its "hidden" and "refused" into 404 and 403, the rest are answered here (409 when the stage does
   * not await an override or this caller already counted). A refusal (403, or the 409 "already counted") is an
   * entry of the audit trail: security teams want attempted bypasses. A 404 writes nothing: a caller who cannot
   * see the run learns nothing, not even through the trail's size.
   */
  async override(principal: Principal, found: VisibleStage, comment: string | null): Promise<TaskStageView> {
    const { stage, standing } = found;
    const actor = actorOf(principal);
    let outcome: Awaited<ReturnType<StageOverrides['override']>>;
    try {
      outcome = await this.overrides.override(
        stage.id,
        overrideCallerOf(standing),
        actor,
        comment,
        (facts) => requireAccess(standing, 'task-stage', 'override', { stage: facts }),
        this.approverLookup(standing.organizationName, standing.workspace!.id),
        (trx, approved) =>
          this.auditTrail.record(
            trx,
            stageOverridden(standing.organizationName, actor, {
              id: approved.stage.id, runId: approved.stage.run_id, stage: approved.stage.stage, approvals: approved.approvals, required: approved.required, released: approved.releases,
            }, comment),
          ),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) await this.recordRefusal(standing, actor, stage, error, comment);
      throw error;
    }
    const { decision, stage: written } = outcome;
    switch (decision.kind) {
      case 'approved': {
        const [view] = await this.stageViews(standing, [written!]);
        // What the caller could do as they overrode (the stage, now running, holds nothing that awaits them).
        return { ...view!, permissions: decision.permissions };
      }
      case 'already-approved': {
        const error = Errors.alreadyApproved();
        await this.recordRefusal(standing, actor, stage, error, comment);
        throw error;
      }
      case 'not-awaiting':
        throw Errors.stageNotAwaitingOverride(decision.status);
      case 'hidden':
      case 'refused':
        // Unreachable: requireAccess asked the same rule on the same facts and threw its 404 or 403.
        throw new Error(`the access table allowed an override the rule ${decision.kind}`);
    }
  }

  /** A refused override on the organization's audit trail, in a transaction of its own (the override's rolled back). */
  private async recordRefusal(standing: OrganizationStanding, actor: Actor, stage: TaskStageRow, error: ApiError, comment: string | null): Promise<void> {
    const entry = decisionRefused(standing.organizationName, actor, {
      id: stage.id, type: 'task_stage', action: 'override', status: error.status, reason: error.message, meta: { 'run-id': stage.run_id, stage: stage.stage, comment },
    });
    await this.auditTrail.transaction(async () => ({ result: undefined, entries: [entry] }));
  }

  /**
   * The standings now of a stage's earlier overriders (access/approver-standings.ts), for the rule to count them
   * again: in the organization and with their teams' access to the run's workspace, as the caller's own is read.
   */
  private approverLookup(organizationName: string, workspaceId: string): ApproverLookup {
    const workspace = { id: workspaceId, organization_name: organizationName };
    return (overriders) => approverStandings((principal) => this.workspaceGate.standingIn(principal, workspace), organizationName, overriders);
  }

  /** The earlier overriders' standings of these stages, by the workspace of each stage's run. */
  private async approversByWorkspace(
    organizationName: string,
    rows: readonly TaskStageRow[],
    overrides: readonly OverrideRow[],
    settings: Map<string, RunApprovalSettings>,
  ): Promise<Map<string, ApproverStandings>> {
    const runOfStage = new Map(rows.map((row) => [row.id, row.run_id]));
    const overridersByWorkspace = new Map<string, string[]>();
    for (const override of overrides) {
      const workspaceId = settings.get(runOfStage.get(override.task_stage_id) ?? '')?.workspaceId;
      if (workspaceId) overridersByWorkspace.set(workspaceId, [...(overridersByWorkspace.get(workspaceId) ?? []), override.overridden_by]);
    }
    const found = new Map<string, ApproverStandings>();
    for (const [workspaceId, overriders] of overridersByWorkspace) found.set(workspaceId, await this.approverLookup(organizationName, workspaceId)(overriders));
    return found;
  }

  /** For `GET /runs/:id?include=task_stages`: the stages of these runs in run then stage order, as `standing` sees them. */
  async forRuns(standing: OrganizationStanding, runIds: readonly string[]): Promise<TaskStageView[]> {
    return this.stageViews(standing, await this.stages.stagesOfRuns(runIds));
  }

  /** What a stage document shows about overriding it, for this caller: the rule's answer, its overrides counted now. */
  private overrideView(
    caller: OverrideCaller,
    row: TaskStageRow,
    own: { results: TaskResultRow[]; evaluations: PolicyEvaluationRow[]; overrides: OverrideRow[] },
    approvers: ApproverStandings,
    settings: RunApprovalSettings | undefined,
  ) {
    const standing = overrideStanding(caller, overrideFactsOf(row, own.results, own.evaluations, own.overrides, approvers, settings));
    return { permissions: standing.permissions, approvals: { required: standing.required, given: standing.approvals, overrides: own.overrides } };
  }

  private async stageViews(standing: OrganizationStanding, rows: TaskStageRow[]): Promise<TaskStageView[]> {
    const ids = rows.map((row) => row.id);
    const results = await this.stages.resultsOfStages(ids);
    const evaluations = await this.evaluations.ofStages(ids);
    // Only a stage that once awaited an override can have overrides: most reads need no query for them.
    const overridable = rows.filter((row) => parseTimestamps(row.status_timestamps)[timestampKey('awaiting_override')] !== undefined);
    const overrides = await this.stages.overridesOf(overridable.map((row) => row.id));
    const settings = await this.stages.approvalSettingsOfRuns(rows.map((row) => row.run_id));
    const approvers = await this.approversByWorkspace(standing.organizationName, rows, overrides, settings);
    const caller = overrideCallerOf(standing);
    return rows.map((row) => {
      const own = {
        results: results.filter((result) => result.task_stage_id === row.id),
        evaluations: evaluations.filter((evaluation) => evaluation.task_stage_id === row.id),
        overrides: overrides.filter((override) => override.task_stage_id === row.id),
      };
      return {
        stage: row,
        resultIds: own.results.map((result) => result.id),
        evaluationIds: own.evaluations.map((evaluation) => evaluation.id),
        ...this.overrideView(caller, row, own, approvers.get(settings.get(row.run_id)?.workspaceId ?? '') ?? new Map(), settings.get(row.run_id)),
      };
    });
  }

  /** The `task-stage` lookup: the stage and the caller's standing, or 404. */
  async visibleStage(principal: Principal, stageId: string): Promise<VisibleStage> {
    const stage = await this.stages.findStage(stageId);
    if (!stage) throw Errors.taskStageNotFound();
    return { stage, standing: await this.standingForRun(principal, stage.run_id, 'task-stage') };
  }

  /** The `task-result` lookup: the result, or 404 when missing or when the caller may not read its run. */
  async visibleResult(principal: Principal, resultId: string): Promise<Visible<TaskResultRow>> {
    const result = await this.stages.findResult(resultId);
    if (!result) throw Errors.taskResultNotFound();
    await this.standingForRun(principal, result.run_id, 'task-result');
    return provenVisible(result);
  }

  /** The caller's standing in the run's organization, or 404 when the run is missing or not theirs to read. */
  private async standingForRun(
    principal: Principal,
    runId: string,
    thing: 'run' | 'task-stage' | 'task-result' | 'policy-evaluation' | 'policy-set-outcome',
  ): Promise<OrganizationStanding> {
    const place = await this.stages.placeOfRun(runId);
    if (!place) throw HIDDEN_AS[thing]({});
    return (await this.workspaceGate.enterOrganizationOf(principal, { id: place.workspaceId, organization_name: place.organizationName }, thing)).standing;
  }
}

/** The set outcome with only the policy outcomes that match any filter (all of them without filters). */
function filterOutcomes(row: PolicySetOutcomeRow, filters: readonly OutcomeFilter[]): PolicySetOutcomeRow | undefined {
  if (filters.length === 0) return row;
  const outcomes = JSON.parse(row.outcomes) as Array<{ status: string; enforcement_level: string }>;
  const kept = outcomes.filter((outcome) =>
    filters.some((filter) => (!filter.status || filter.status === outcome.status) && (!filter.enforcementLevel || filter.enforcementLevel === outcome.enforcement_level)),
  );
  return kept.length === 0 ? undefined : { ...row, outcomes: JSON.stringify(kept) };
}
