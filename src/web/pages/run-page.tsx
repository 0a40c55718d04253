import { TeamNamesProvider, useTeamNames } from '../actors/actor-names';
import { PageTitle } from '../components/page-title';
import { ErrorNotice } from '../components/page-states';
import { useEffect } from 'preact/hooks';
import { paths } from '../router/console-paths';
import { href, showCanonicalPath } from '../router/history-router';
import { DecisionBanner } from '../runs/decision-banner';
import { RunActions } from '../runs/run-actions';
import { RunRecord } from '../runs/run-record';
import { RunTimeline } from '../runs/run-timeline';
import { buildTimeline } from '../runs/run-timeline-model';
import { StatusBadge, Time } from '../runs/status-badge';
import { useRunDetails } from '../runs/use-run-details';
import { errorReason, isRunFinal } from '../runs/run-types';
import type { TimelineStep } from '../runs/run-timeline-model';
import { useSession } from '../session/session-context';

/**
 * One run: its status, the timeline of phases and task stages with each stage's results and outcomes,
 * the plan summary, and the decisions the caller may take (override, apply, discard, cancel). While the
 * run can still move the page reads it again by itself.
 */
export function RunPage(props: { runId: string }) {
  const { api } = useSession();
  const details = useRunDetails(api, props.runId);
  const loadedWorkspace = details.state === 'ok' ? details.data.workspace : undefined;
  const organization = (loadedWorkspace?.relationships?.organization?.data as { id: string } | undefined)?.id;
  const teamNames = useTeamNames(api, organization);
  const canonical = organization && loadedWorkspace ? paths.run(organization, loadedWorkspace.attributes.name, props.runId) : null;
  useEffect(() => {
    if (canonical) showCanonicalPath(canonical);
  }, [canonical]);
  if (details.state === 'loading') return <p role="status" class="muted">Loading the run…</p>;
  if (details.state === 'error') {
    return (
      <>
        <PageTitle>Run</PageTitle>
        <ErrorNotice error={details.error} what="run" />
      </>
    );
  }
  const { run, workspace, plan, apply, stages, results, policies } = details.data;
  const workspaceId = (run.relationships?.workspace?.data as { id: string } | undefined)?.id;
  const steps = buildTimeline({ plan, apply, stages, results });
  // The banner at the top offers Override, Apply and Discard while the run waits for a person.
  const decisionPending = stages.some((stage) => stage.attributes.status === 'awaiting_override') || run.attributes.actions['is-confirmable'];
  return (
    <TeamNamesProvider value={teamNames}>
      {workspaceId && (
        <p class="muted">
          <a href={href(organization && workspace ? paths.workspace(organization, workspace.attributes.name) : paths.workspaceById(workspaceId))}>
            Workspace {workspace?.attributes.name ?? workspaceId}
          </a>
        </p>
      )}
      <PageTitle>{runHeadline(run.attributes.message)}</PageTitle>
      <p class="run-id muted" data-testid="run-id">
        Run <code>{run.id}</code>
      </p>
      <DecisionBanner
        run={run}
        plan={plan}
        stages={stages}
        results={results}
        policies={policies}
        workspaceId={workspaceId}
        workspace={workspace}
        onOverridden={(stage) => {
          details.replaceStage(stage);
          details.reload();
          // The banner (and the button that had focus) may go: keyboard and screen-reader users continue at the stage.
          focusSoon(`step-${stage.attributes.stage}`);
        }}
        onActed={() => {
          details.reload();
          focusSoon('run-status');
        }}
      />
      <dl class="facts">
        <dt>Status</dt>
        <dd aria-live="polite" data-testid="run-status" id="run-status" tabIndex={-1}>
          <StatusBadge status={run.attributes.status} />
          {!details.settled && <span class="muted"> · updating by itself</span>}
        </dd>
        <dt>Message</dt>
        <dd class="preserve-lines">{run.attributes.message || <span class="muted">none</span>}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={run.attributes['created-at']} />
        </dd>
        <dt>Kind</dt>
        <dd>
          {[run.attributes['plan-only'] ? 'plan only' : 'plan and apply', run.attributes['is-destroy'] ? 'destroy' : null, run.attributes['auto-apply'] ? 'auto-apply' : null]
            .filter(Boolean)
            .join(', ')}
        </dd>
      </dl>
      {run.attributes.status === 'errored' && <ErroredNotice reason={errorReason(run)} steps={steps} />}
      {details.refreshError && (
        <div role="status" class="notice notice-error">
          Could not refresh the run ({details.refreshError.message}); showing what was last read, and trying again.
        </div>
      )}
      {!decisionPending && (
        <RunActions
          run={run}
          onDone={() => {
            details.reload();
            focusSoon('run-status');
          }}
        />
      )}
      <h2>Timeline</h2>
      <RunTimeline steps={steps} results={results} policies={policies} now={Date.now()} runFinal={isRunFinal(run.attributes.status)} />
      <RunRecord runId={run.id} version={[run.attributes.status, ...stages.map((stage) => stage.attributes['updated-at'])].join(' ')} />
    </TeamNamesProvider>
  );
}

/** Why the run stopped, at the top: the server's reason when it gives one, and the step that errored. */
function ErroredNotice(props: { reason: string | null; steps: TimelineStep[] }) {
  const failed = props.steps.find((step) => step.status === 'errored' || (step.kind === 'stage' && step.status === 'unreachable' && step.startedAt));
  return (
    <div class="notice notice-error" role="status" data-testid="run-error">
      <strong>This run errored{failed ? ` at ${failed.label.toLowerCase()}` : ''}.</strong>
      {props.reason ? <p class="preserve-lines error-reason">{props.reason}</p> : failed?.kind === 'stage' ? ' A mandatory task errored or could not be reached: its result below says why.' : null}
    </div>
  );
}

/** The run's message leads the page (its first line; the whole message is below), as HCP's run page does. */
export function runHeadline(message: string | null | undefined): string {
  const firstLine = (message ?? '').split('\n').find((line) => line.trim() !== '')?.trim();
  return firstLine || 'Run without a message';
}

/** Focus an element after the render that follows a state change. */
function focusSoon(id: string): void {
  requestAnimationFrame(() => document.getElementById(id)?.focus());
}
