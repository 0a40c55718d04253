import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/clock.js';
import type { Jobs } from '../jobs/jobs.js';
import type { PolicyEngine, RegoVersion } from '../policies/opa-engine.js';
import type { ApplicableSet, PoliciesRepository } from '../policies/policies.repository.js';
import { addCounts, countResults, judgeEvaluation, policyOutcome, SENTINEL_UNAVAILABLE, type SetOutcome } from '../policies/policy-outcomes.js';
import type { RunsRepository } from '../runs/runs.repository.js';
import type { PhaseUploadsRepository } from '../runs/phase-uploads.repository.js';
import type { WorkspacesRepository } from '../workspaces/workspaces.repository.js';
import type { PolicySetOutcomeRow } from './policy-evaluations.repository.js';
import { JOB_KINDS, type TaskStageRunner } from './task-stage-runner.js';

/** The run and its plan; the plan JSON itself is read piece by piece from the uploads (never parsed here). */
export type RunSource = Pick<RunsRepository, 'findRun' | 'planAndApplyOf'>;

/**
 * The job that evaluates a post-plan stage's policy sets with OPA (issue 29). OPA's input is HCP's:
 * `input.plan` is the plan JSON the pipeline uploaded, written to a private file as it is stored (the server
 * never parses it), and `input.run` the run's facts. Every policy of every set that applies to the workspace
 * now is evaluated by the engine (compiled to Wasm once per node and run in a worker thread, or an OPA process
 * where Wasm cannot answer exactly; bounded in time, memory and answer size: opa-engine.ts); the outcomes
 * and the evaluation's status are then written and the stage settles with its run task results
 * (TaskStageRunner.finishEvaluation). The job runs in the policy lane, in its organization's share, and each
 * policy in its organization's share of the node's policy slots (jobs/job-lanes.ts, policies/fair-slots.ts). A node that dies midway leaves the job to another node: the evaluation
 * stays `running` until one finishes it, and a finished one is never written twice.
 */
export class PolicyEvaluationJob {
  constructor(
    private readonly runner: TaskStageRunner,
    private readonly policies: Pick<PoliciesRepository, 'applicableSets'>,
    private readonly runs: RunSource,
    private readonly uploads: Pick<PhaseUploadsRepository, 'read'>,
    private readonly workspaces: Pick<WorkspacesRepository, 'findById'>,
    private readonly engine: PolicyEngine,
    private readonly jobs: Jobs,
    private readonly log: FastifyBaseLogger,
  ) {}

  register(): void {
    this.jobs.register(JOB_KINDS.evaluatePolicies, (payload: { evaluationId: string }) => this.evaluate(payload.evaluationId));
  }

  async evaluate(evaluationId: string): Promise<void> {
    const evaluation = await this.runner.startEvaluation(evaluationId);
    if (!evaluation) return;
    const run = await this.runs.findRun(evaluation.run_id);
    const workspace = run ? await this.workspaces.findById(run.workspace_id) : undefined;
    const sets = workspace ? await this.policies.applicableSets(workspace.id) : [];
    const judged = await this.judge(sets, workspace?.organization_name ?? '', async (dir) => {
      if (!run || !workspace) return { error: 'the run is gone' };
      const { plan } = await this.runs.planAndApplyOf(run.id);
      const inputPath = path.join(dir, 'input.json');
      await writeInput(inputPath, runFacts(run, workspace), plan?.json_upload_id ? this.uploads.read(plan.json_upload_id) : null);
      return { inputPath };
    });
    const { status, hold } = judgeEvaluation(judged);
    const now = nowIso();
    const outcomes: PolicySetOutcomeRow[] = judged.map((set, position) => ({
      id: newId('psout'), policy_evaluation_id: evaluationId, position, policy_set_id: set.policySetId, policy_set_name: set.policySetName,
      policy_set_description: set.policySetDescription, overridable: set.overridable ? 1 : 0, error: set.error, outcomes: JSON.stringify(set.outcomes),
      result_count: JSON.stringify(set.resultCount), created_at: now,
    }));
    const total = addCounts(judged.map((set) => set.resultCount));
    const wrote = await this.runner.finishEvaluation(evaluationId, { status, hold, resultCount: JSON.stringify(total), outcomes });
    // The run's record has the evaluation already: finishEvaluation writes it in the same transaction.
    if (wrote) this.log.info({ runId: evaluation.run_id, evaluationId, status, hold, ...total }, 'policy evaluation finished');
  }

  /** Each set's outcomes; a set that cannot be judged (no engine, no input) has every policy errored with the reason. */
  private async judge(sets: ApplicableSet[], organization: string, prepare: (dir: string) => Promise<{ inputPath: string } | { error: string }>): Promise<SetOutcome[]> {
    if (sets.length === 0) return [];
    const dir = await mkdtemp(path.join(tmpdir(), 'teamstage-policy-input-'));
    try {
      const input = this.engine.available ? await prepare(dir) : { error: `no policy engine on this server: ${this.engine.description}` };
      const judged: SetOutcome[] = [];
      for (const { set, policies } of sets) {
        const outcomes = [];
        for (const policy of policies) {
          const level = policy.enforcement_level;
          const described = { name: policy.name, description: policy.description, query: policy.query, level };
          // Sentinel policies are kept but never run: errored, and their level decides (policy-outcomes.ts).
          if (policy.kind === 'sentinel') outcomes.push(policyOutcome(described, { ok: false, reason: SENTINEL_UNAVAILABLE }));
          else if ('error' in input) outcomes.push(policyOutcome(described, { ok: false, reason: input.error }));
          else if (policy.rego === null) outcomes.push(policyOutcome(described, { ok: false, reason: 'the policy has not been uploaded' }));
          else {
            const answer = await this.engine.evaluate({ rego: policy.rego, regoVersion: (policy.rego_version ?? 'v1') as RegoVersion, query: policy.query }, input.inputPath, organization);
            outcomes.push(policyOutcome(described, answer));
          }
        }
        judged.push({
          policySetId: set.id, policySetName: set.name, policySetDescription: set.description, overridable: set.overridable === 1,
          error: 'error' in input ? input.error : null, outcomes, resultCount: countResults(outcomes),
        });
      }
      return judged;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** HCP's `input.run`, from what Teamstage knows of a run. */
function runFacts(
  run: { id: string; created_at: string; created_by_name: string | null; message: string; is_destroy: number; plan_only: number },
  workspace: { id: string; name: string; organization_name: string; execution_mode: string; auto_apply: number; working_directory: string; description: string | null; created_at: string },
): unknown {
  return {
    id: run.id,
    created_at: run.created_at,
    created_by: run.created_by_name,
    message: run.message,
    is_destroy: run.is_destroy === 1,
    speculative: run.plan_only === 1,
    organization: { name: workspace.organization_name },
    workspace: {
      id: workspace.id,
      name: workspace.name,
      created_at: workspace.created_at,
      description: workspace.description,
      execution_mode: workspace.execution_mode,
      auto_apply: workspace.auto_apply === 1,
      working_directory: workspace.working_directory,
    },
  };
}

/**
 * `{"run":…,"plan":…}` written to a private file as the plan JSON's stored pieces stream past (with backpressure):
 * the bytes go in as they were uploaded (OPA parses them, in its own process); a missing plan JSON is `null`.
 */
async function writeInput(file: string, run: unknown, planJson: AsyncIterable<Buffer> | null): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  const write = (piece: string | Buffer) => new Promise<void>((resolve, reject) => out.write(piece, (error) => (error ? reject(error) : resolve())));
  await write(`{"run":${JSON.stringify(run)},"plan":`);
  if (planJson === null) await write('null');
  else for await (const piece of planJson) await write(piece);
  await write('}');
  out.end();
  await finished(out);
}
