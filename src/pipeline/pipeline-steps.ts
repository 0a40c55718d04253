import fs from 'node:fs';
import { applyCountsOf, type ApplyCounts } from './apply-counts.js';
import { packConfiguration, type PackedConfiguration } from './config-archive.js';
import { EXIT, PipelineError, runFailed, usageError } from './exit-codes.js';
import { follow, readRun, type FollowContext } from './run-follower.js';
import { StageReporter } from './stage-report.js';
import { ApiError } from './teamstage-client.js';
import { isUnsuccessfulRunStatus } from '../shared/run-statuses.js';

/**
 * The pipeline's side of the agent protocol (docs/pipeline.md, "Gate your pipeline"), one function per command.
 * Each returns the exit code; problems end in a PipelineError with its code.
 */

const claimAnswers = { accept: [409] };

export interface PlanStartArgs {
  run?: string;
  organization?: string;
  workspace?: string;
  configDir: string;
  message: string;
  planOnly: boolean;
}

export async function planStart(context: FollowContext, args: PlanStartArgs): Promise<number> {
  const { client, out } = context;
  const runId = args.run ?? (await createRun(context, args));
  if (args.run) out.result(runId);
  const reporter = new StageReporter(client, out, new Set(['pre_plan']));
  return follow(
    context,
    runId,
    reporter,
    async (position, run) => {
      if (position.kind === 'in-progress') return undefined;
      if (position.kind !== 'plan-claimable') throw runFailed(`the plan of run ${run.id} cannot be claimed: the run is ${run.status}`);
      const claimed = await client.request('POST', `/plans/${run.planId}/actions/claim`, claimAnswers);
      // 409: not claimable yet (a pre-plan stage is about to start); the next poll tells.
      if (claimed.status === 409) return undefined;
      out.info(`plan ${run.planId} claimed: run terraform plan now`);
      return EXIT.proceed;
    },
    { printStatus: false },
  );
}

async function createRun(context: FollowContext, args: PlanStartArgs): Promise<string> {
  const { client, out } = context;
  const workspaceId = await workspaceIdOf(context, args);
  let packed: PackedConfiguration;
  try {
    packed = await packConfiguration(args.configDir);
  } catch (error) {
    throw usageError(`cannot pack the configuration: ${(error as Error).message}`);
  }
  const { archive } = packed;
  for (const left of packed.neverPacked) out.info(`not uploaded: ${left.path} (${left.reason}; Teamstage never packs one)`);
  const version = await client.request('POST', `/workspaces/${workspaceId}/configuration-versions`, {
    body: { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } },
  });
  const uploadUrl = version.json.data.attributes['upload-url'] as string;
  await client.request('PUT', uploadUrl, { body: archive, contentType: 'application/octet-stream', anonymous: true, retry: true });
  out.info(`configuration ${version.json.data.id} uploaded (${archive.length} bytes from ${args.configDir})`);
  const created = await client.request('POST', '/runs', {
    body: {
      data: {
        type: 'runs',
        attributes: { message: args.message, 'plan-only': args.planOnly },
        relationships: {
          workspace: { data: { type: 'workspaces', id: workspaceId } },
          'configuration-version': { data: { type: 'configuration-versions', id: version.json.data.id } },
        },
      },
    },
  });
  const runId = created.json.data.id as string;
  // First on stdout, so a script has the run id even when the pre-plan stage then stops the run.
  out.result(runId);
  out.info(`run ${runId} created in workspace ${workspaceId}`);
  return runId;
}

async function workspaceIdOf(context: FollowContext, args: PlanStartArgs): Promise<string> {
  const { workspace, organization } = args;
  if (!workspace) throw usageError('plan-start needs --workspace (a name with --organization, or a ws- id), or --run');
  const path = workspace.startsWith('ws-')
    ? `/workspaces/${encodeURIComponent(workspace)}`
    : organization
      ? `/organizations/${encodeURIComponent(organization)}/workspaces/${encodeURIComponent(workspace)}`
      : undefined;
  if (!path) throw usageError('--workspace NAME needs --organization ORG (or pass the ws- id)');
  const shown = (await context.client.get(path)).json.data;
  const mode = shown.attributes?.['execution-mode'];
  // Only `agent` workspaces wait for a pipeline to claim their plan; elsewhere the claim would never come.
  if (mode !== undefined && mode !== 'agent') {
    throw usageError(`workspace ${shown.attributes?.name ?? shown.id} has execution-mode "${mode}"; the pipeline needs "agent" (PATCH /workspaces/${shown.id})`);
  }
  return shown.id as string;
}

export interface FinishArgs {
  run: string;
  log?: string;
  error?: string;
}

export async function planFinish(context: FollowContext, args: FinishArgs & { planJson?: string }): Promise<number> {
  const { client, out } = context;
  if (!args.error && !args.planJson) throw usageError('plan-finish needs --plan-json FILE (the output of terraform show -json), or --error MESSAGE');
  const planJson = args.planJson ? readFile(args.planJson, '--plan-json') : undefined;
  const log = args.log ? readFile(args.log, '--log') : undefined;
  const run = await readRun(client, args.run);
  if (!run.planId) throw runFailed(`run ${run.id} has no plan`);
  const phase = `/plans/${run.planId}`;
  if (!args.error && !BEFORE_PLAN_REPORT.has(run.status)) {
    // A re-run of the CI step after the report landed: the plan is handed over already, only wait.
    if (!isUnsuccessfulRunStatus(run.status)) out.info(`the plan was reported already (run is ${run.status}): waiting for the verdict`);
    return followPlanVerdict(context, run.id);
  }
  const report = await handOver(context, run.id, async () => {
    if (planJson) await client.request('PUT', `${phase}/json-output`, { body: planJson, contentType: 'application/json', retry: true });
    if (log) await client.request('PUT', `${phase}/log`, { body: log, contentType: 'text/plain', retry: true });
    return reportPhase(context, phase, args.error);
  });
  if (args.error) return reportedErrored(context, run.id);
  const attributes = report.json?.data?.attributes ?? {};
  if (typeof attributes['resource-additions'] === 'number') {
    out.info(
      `plan: ${attributes['resource-additions']} to add, ${attributes['resource-changes']} to change, ` +
        `${attributes['resource-destructions']} to destroy, ${attributes['resource-imports'] ?? 0} to import`,
    );
  }
  return followPlanVerdict(context, run.id);
}

/** Statuses in which the plan is not reported yet. */
const BEFORE_PLAN_REPORT = new Set(['pending', 'plan_queued', 'pre_plan_running', 'pre_plan_completed', 'pre_plan_awaiting_decision', 'planning']);

function followPlanVerdict(context: FollowContext, runId: string): Promise<number> {
  const { client, out } = context;
  const reporter = new StageReporter(client, out, new Set(['post_plan', 'pre_apply']));
  return follow(context, runId, reporter, async (position) => {
    switch (position.kind) {
      case 'in-progress':
      case 'planning':
      case 'plan-claimable':
        return undefined;
      case 'planned-and-finished':
        out.info('the run finished after its plan (no changes, or plan-only): nothing to apply');
        return EXIT.proceed;
      default:
        out.info('the plan passed its checks: the apply may start (teamstage pipeline apply-start)');
        return EXIT.proceed;
    }
  });
}

export async function applyStart(context: FollowContext, args: { run: string; confirm: boolean }): Promise<number> {
  const { client, out } = context;
  let confirmed = false;
  let toldWaiting = false;
  const reporter = new StageReporter(client, out, new Set(['pre_apply']));
  return follow(
    context,
    args.run,
    reporter,
    async (position, run) => {
      switch (position.kind) {
        case 'in-progress':
          return undefined;
        case 'awaiting-confirmation':
          if (!args.confirm) {
            if (!toldWaiting) out.info('waiting for someone to confirm the apply (--no-confirm)');
            toldWaiting = true;
          } else if (!confirmed) {
            // Reaching the apply step of the pipeline is the confirmation, as `terraform apply` in a pipeline is.
            // 409: confirmed meanwhile (auto-apply, or a person).
            await client.request('POST', `/runs/${run.id}/actions/apply`, {
              body: { comment: 'confirmed by teamstage pipeline apply-start' },
              contentType: 'application/json',
              accept: [409],
            });
            confirmed = true;
            out.info('apply confirmed');
          }
          return undefined;
        case 'apply-claimable': {
          if (!run.applyId) throw runFailed(`run ${run.id} has no apply`);
          const claimed = await client.request('POST', `/applies/${run.applyId}/actions/claim`, claimAnswers);
          if (claimed.status === 409) return undefined;
          out.info(`apply ${run.applyId} claimed: run terraform apply now`);
          return EXIT.proceed;
        }
        case 'planned-and-finished':
          throw runFailed(`run ${run.id} ended after its plan (no changes, or plan-only): there is nothing to apply`);
        default:
          throw runFailed(`the apply of run ${run.id} cannot be claimed: the run is ${run.status}`);
      }
    },
    { printStatus: false },
  );
}

export async function applyFinish(context: FollowContext, args: FinishArgs): Promise<number> {
  const { client, out } = context;
  const log = args.log ? readFile(args.log, '--log') : undefined;
  const run = await readRun(client, args.run);
  if (!run.applyId) throw runFailed(`run ${run.id} has no apply`);
  const phase = `/applies/${run.applyId}`;
  if (!args.error && ['applied', 'post_apply_running', 'post_apply_awaiting_decision', 'post_apply_completed'].includes(run.status)) {
    // A re-run of the CI step after the report landed: only wait.
    out.info(`the apply was reported already (run is ${run.status}): waiting for the post-apply stage`);
  } else {
    // The apply's counts, from terraform's own output, go with the report (docs/agent-protocol.md).
    const counts = log && !args.error ? applyCountsOf(log.toString('utf8')) : undefined;
    if (counts) {
      out.info(
        `apply: ${counts['resource-additions']} added, ${counts['resource-changes']} changed, ${counts['resource-destructions']} destroyed` +
          (counts['resource-imports'] > 0 ? `, ${counts['resource-imports']} imported` : ''),
      );
    }
    await handOver(context, run.id, async () => {
      if (log) await client.request('PUT', `${phase}/log`, { body: log, contentType: 'text/plain', retry: true });
      return reportPhase(context, phase, args.error, counts);
    });
  }
  if (args.error) return reportedErrored(context, run.id);
  const reporter = new StageReporter(client, out, new Set(['post_apply']));
  return follow(context, run.id, reporter, async (position, run) => {
    switch (position.kind) {
      case 'in-progress':
      case 'applying':
        return undefined;
      case 'applied':
        out.info('applied');
        return EXIT.proceed;
      default:
        throw runFailed(`run ${run.id} is ${run.status} after the apply report`);
    }
  });
}

export async function waitForRun(context: FollowContext, args: { run: string }): Promise<number> {
  const { client, out } = context;
  return follow(context, args.run, new StageReporter(client, out), async (position) => {
    const next: Partial<Record<typeof position.kind, string>> = {
      'plan-claimable': 'the plan may start: teamstage pipeline plan-start --run …',
      planning: 'the plan is claimed: the pipeline reports it with plan-finish',
      'awaiting-confirmation': 'the plan passed its checks: the apply may start (teamstage pipeline apply-start)',
      'apply-claimable': 'the apply may start: teamstage pipeline apply-start',
      applying: 'the apply is claimed: the pipeline reports it with apply-finish',
      applied: 'applied',
      'planned-and-finished': 'the run finished after its plan: nothing to apply',
    };
    const line = next[position.kind];
    if (!line) return undefined;
    out.info(line);
    return EXIT.proceed;
  });
}

/** PUT /…/actions/report: idempotent on the server, so retried like the uploads. */
function reportPhase(context: FollowContext, phase: string, error: string | undefined, counts?: ApplyCounts) {
  const body = error ? { status: 'errored', message: error } : { status: 'finished', ...counts };
  return context.client.request('POST', `${phase}/actions/report`, { body, contentType: 'application/json', retry: true });
}

/**
 * Uploads and the report; a 409 because the run was canceled or discarded meanwhile is the run's
 * failure (exit 1), not the pipeline's mistake.
 */
async function handOver<T>(context: FollowContext, runId: string, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 409) throw error;
      const run = await readRun(context.client, runId);
      if (isUnsuccessfulRunStatus(run.status)) {
        context.out.result(run.status);
        throw runFailed(`run ${runId} is ${run.status}: ${error.detail}`);
      }
      // The server answers a contended write with a plain 409 "try again"; uploads replace and reports
      // are idempotent, so the whole hand-over may be repeated. A real conflict stays a 409 and ends here.
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

async function reportedErrored(context: FollowContext, runId: string): Promise<number> {
  const run = await readRun(context.client, runId);
  context.out.info(`reported errored: run ${runId} is ${run.status}`);
  context.out.result(run.status);
  return EXIT.failed;
}

function readFile(file: string, option: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw new PipelineError(`${option} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, EXIT.usage);
  }
}
