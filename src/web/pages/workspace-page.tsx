import { useEffect } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { ErrorNotice } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href, showCanonicalPath } from '../router/history-router';
import { useSession } from '../session/session-context';
import { WorkspaceForm } from '../workspaces/workspace-form';
import { WorkspaceRunsSection } from '../workspaces/workspace-runs-section';
import { WorkspaceTasksSection } from '../workspaces/workspace-tasks-section';
import { WorkspaceTeamAccessSection } from '../workspaces/workspace-team-access-section';
import { relatedId, type Workspace, type WorkspaceAttributes } from '../workspaces/workspace-types';

/** How a page names its workspace: by organization and name (HCP's paths), or by id (old links). */
export type WorkspaceLookup = { id: string } | { organization: string; name: string };

/** One workspace: its runs first (following new ones), then its settings and the run tasks attached to it. */
export function WorkspacePage(props: { lookup: WorkspaceLookup }) {
  const { api } = useSession();
  const { lookup } = props;
  const key = 'id' in lookup ? lookup.id : `${lookup.organization}/${lookup.name}`;
  const workspace = useApi(
    () =>
      api.get<Document<WorkspaceAttributes>>(
        'id' in lookup ? `/workspaces/${segment(lookup.id)}` : `/organizations/${segment(lookup.organization)}/workspaces/${segment(lookup.name)}`,
      ),
    [key],
  );
  const loaded = workspace.data?.data as Workspace | undefined;
  const canonical = loaded ? paths.workspace(relatedId(loaded, 'organization') ?? '', loaded.attributes.name) : null;
  useEffect(() => {
    if (canonical) showCanonicalPath(canonical);
  }, [canonical]);
  if (workspace.state === 'loading') return <p role="status" class="muted">Loading the workspace…</p>;
  if (workspace.state === 'error') {
    return (
      <>
        <PageTitle>Workspace</PageTitle>
        <ErrorNotice error={workspace.error} what="workspace" />
      </>
    );
  }
  const data = workspace.data.data as Workspace;
  const organization = relatedId(data, 'organization') ?? '';
  return (
    <>
      <p class="muted">
        <a href={href(paths.workspaces(organization))}>Workspaces of {organization}</a>
      </p>
      <PageTitle>{`Workspace ${data.attributes.name}`}</PageTitle>
      <WorkspaceRunsSection workspace={data} />
      <h2>Settings</h2>
      <dl class="facts">
        {relatedId(data, 'project') && (
          <>
            <dt>Project</dt>
            <dd><a href={href(paths.project(organization, relatedId(data, 'project')!))}>View the project</a></dd>
          </>
        )}
        <dt>Description</dt>
        <dd>{data.attributes.description || <span class="muted">none</span>}</dd>
        <dt>Apply</dt>
        <dd>{data.attributes['auto-apply'] ? 'Automatic after a successful plan' : 'After someone confirms the plan'}</dd>
        {data.attributes['execution-mode'] && (
          <>
            <dt>Execution</dt>
            <dd>{data.attributes['execution-mode']}</dd>
          </>
        )}
      </dl>
      {data.attributes.permissions?.['can-update'] && (
        <details class="edit">
          <summary>Change settings</summary>
          <WorkspaceForm organization={organization} workspace={data} onSaved={workspace.reload} />
        </details>
      )}
      <WorkspaceTasksSection workspace={data} organization={organization} />
      <WorkspaceTeamAccessSection workspace={data} organization={organization} />
    </>
  );
}
