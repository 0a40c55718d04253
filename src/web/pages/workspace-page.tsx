import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { ErrorNotice } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { href, link } from '../router/hash-router';
import { useSession } from '../session/session-context';
import { WorkspaceRunsSection } from '../workspaces/workspace-runs-section';
import { WorkspaceTasksSection } from '../workspaces/workspace-tasks-section';
import { relatedId, type Workspace, type WorkspaceAttributes } from '../workspaces/workspace-types';

/** One workspace: its settings, the run tasks attached to it, and its runs. */
export function WorkspacePage(props: { workspaceId: string }) {
  const { api } = useSession();
  const workspace = useApi(() => api.get<Document<WorkspaceAttributes>>(`/workspaces/${segment(props.workspaceId)}`), [props.workspaceId]);
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
        <a href={href(link`/orgs/${organization}/workspaces`)}>Workspaces of {organization}</a>
      </p>
      <PageTitle>{`Workspace ${data.attributes.name}`}</PageTitle>
      <dl class="facts">
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
      <WorkspaceTasksSection workspace={data} organization={organization} />
      <WorkspaceRunsSection workspace={data} />
    </>
  );
}
