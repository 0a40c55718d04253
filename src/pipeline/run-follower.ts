import { EXIT, PipelineError } from './exit-codes.js';
import { positionOf, snapshotOf, type Position, type RunSnapshot } from './run-position.js';
import type { Output, StageReporter } from './stage-report.js';
import type { TeamstageClient } from './teamstage-client.js';

export interface WaitOptions {
  /** The longest one waiting read lasts (`GET /runs/:id?wait=`): the server answers at once when the run changes. */
  pollMs: number;
  timeoutMs: number;
  /** How long to keep waiting while a stage awaits an override before exiting 3 (0: exit at once). */
  overrideWaitMs: number;
}

export interface FollowContext {
  client: TeamstageClient;
  out: Output;
  wait: WaitOptions;
}

/** What to do at a position: an exit code ends the command, undefined polls again. */
export type Decide = (position: Position, run: RunSnapshot) => Promise<number | undefined>;

/**
 * The run with its task stages. With `wait`, a long poll: the server answers as soon as the run differs
 * from the state `wait.token` names (its status, a stage, its place in the queue), else after `wait.ms`.
 * So a waiting command learns of a change within milliseconds, with one request open at a time.
 */
export async function readRun(client: TeamstageClient, runId: string, wait?: { token: string; ms: number }): Promise<RunSnapshot> {
  const waiting = wait ? `&wait=${(Math.max(wait.ms, 10) / 1000).toFixed(2)}&wait-token=${encodeURIComponent(wait.token)}` : '';
  return snapshotOf((await client.get(`/runs/${encodeURIComponent(runId)}?include=task_stages${waiting}`)).json);
}

/**
 * Why a pending run may not start: its workspace is locked (HCP's lock, a gate's freeze switch), said with who holds
 * the lock, or undefined when it is not locked.
 */
export async function workspaceLock(client: TeamstageClient, workspaceId: string | undefined): Promise<string | undefined> {
  if (!workspaceId) return undefined;
  const workspace = (await client.get(`/workspaces/${encodeURIComponent(workspaceId)}`)).json.data;
  if (workspace?.attributes?.locked !== true) return undefined;
  const holder = workspace.relationships?.['locked-by']?.data;
  const by = holder?.id ? ` by ${LOCK_HOLDERS[holder.type] ?? holder.type} ${holder.id}` : '';
  return `workspace ${workspace.attributes.name ?? workspaceId} is locked${by}`;
}

const LOCK_HOLDERS: Record<string, string> = { users: 'user', teams: 'team', organizations: 'organization', runs: 'run' };

/**
 * Polls the run, printing each new status and each stage verdict, until `decide` ends the command.
 * Failures and overrides are decided here for every command: a failed run exits 1, a stage awaiting
 * an override exits 3 (after `overrideWaitMs`, for pipelines that would rather hold the job open
 * while a person decides).
 */
export async function follow(
  context: FollowContext,
  runId: string,
  reporter: StageReporter,
  decide: Decide,
  options: { printStatus: boolean } = { printStatus: true },
): Promise<number> {
  const { client, out, wait } = context;
  const deadline = Date.now() + wait.timeoutMs;
  let lastStatus: string | undefined;
  let lastQueuePosition: number | undefined;
  let overrideSince: number | undefined;
  let previous: RunSnapshot | undefined;
  const finish = (code: number, run: RunSnapshot) => {
    if (options.printStatus) out.result(run.status);
    return code;
  };
  for (;;) {
    // Until the deadline, or until an override wait runs out: whichever comes first.
    const until = Math.min(deadline, overrideSince === undefined ? Infinity : overrideSince + wait.overrideWaitMs);
    const run = previous?.waitToken ? await readRun(client, runId, { token: previous.waitToken, ms: Math.min(wait.pollMs, Math.max(0, until - Date.now())) }) : await readRun(client, runId);
    previous = run;
    if (run.status !== lastStatus) out.info(`run ${run.id}: ${run.status}`);
    lastStatus = run.status;
    if (run.status === 'pending' && run.positionInQueue !== lastQueuePosition && run.positionInQueue !== undefined) {
      const ahead = run.positionInQueue === 0 ? 'next' : `${run.positionInQueue} run${run.positionInQueue === 1 ? '' : 's'} ahead`;
      out.info(`run ${run.id}: waiting for its turn, ${ahead} in the workspace's queue`);
      const lock = await workspaceLock(client, run.workspaceId);
      if (lock) out.info(`run ${run.id}: no run starts while ${lock}; it starts once the workspace is unlocked`);
    }
    lastQueuePosition = run.positionInQueue;
    await reporter.report(run.stages);
    const position = positionOf(run);
    if (position.kind === 'failed') {
      out.info(`the run is ${run.status}: it will not proceed`);
      return finish(EXIT.failed, run);
    }
    if (position.kind === 'awaiting-override') {
      overrideSince ??= Date.now();
      if (Date.now() - overrideSince >= wait.overrideWaitMs) {
        out.info(
          `the ${position.stage} stage awaits an override: a person decides (override it, or discard the run). ` +
            `Afterwards \`teamstage pipeline wait --run ${run.id}\` picks the run up again.`,
        );
        return finish(EXIT.awaitingOverride, run);
      }
    } else {
      overrideSince = undefined;
      const code = await decide(position, run);
      if (code !== undefined) return finish(code, run);
    }
    if (Date.now() > deadline) {
      throw new PipelineError(`gave up waiting after ${Math.round(wait.timeoutMs / 1000)} s: run ${run.id} is still ${run.status}`, EXIT.usage);
    }
  }
}
