import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { EmptyState, Loader } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import { relatedId, stageLabel, type RunTaskAttributes, type Workspace, type WorkspaceTaskAttributes } from './workspace-types';

/** The run tasks attached to a workspace: which task, at which stages, advisory or mandatory. */
export function WorkspaceTasksSection(props: { workspace: Workspace; organization: string }) {
  const { api } = useSession();
  const attachments = useApi(
    () => api.get<ListDocument<WorkspaceTaskAttributes>>(`/workspaces/${segment(props.workspace.id)}/tasks`, { 'page[size]': '100' }),
    [props.workspace.id],
  );
  // The attachments name their task by id only; the organization's run tasks give the names.
  const tasks = useApi(
    () => api.get<ListDocument<RunTaskAttributes>>(`/organizations/${segment(props.organization)}/tasks`, { 'page[size]': '100' }),
    [props.organization],
  );
  const names = new Map((tasks.data?.data ?? []).map((task) => [task.id, task.attributes.name]));
  return (
    <section aria-labelledby="workspace-tasks-heading">
      <h2 id="workspace-tasks-heading">Run tasks</h2>
      <Loader result={attachments} what="run tasks of the workspace">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>
              No run task is attached to this workspace, so its runs go through no task stage. Attach one through the API (POST
              /workspaces/…/tasks); the organization's run tasks are listed on its <a href={href(paths.tasks(props.organization))}>run tasks</a>{' '}
              page.
            </EmptyState>
          ) : (
            <table class="list">
              <caption class="visually-hidden">Run tasks attached to {props.workspace.attributes.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Run task</th>
                  <th scope="col">Stages</th>
                  <th scope="col">Enforcement</th>
                </tr>
              </thead>
              <tbody>
                {document.data.map((attachment) => {
                  const taskId = relatedId(attachment, 'task') ?? '';
                  const stages = attachment.attributes.stages?.length ? attachment.attributes.stages : attachment.attributes.stage ? [attachment.attributes.stage] : [];
                  return (
                    <tr key={attachment.id}>
                      <td data-label="Run task">{names.get(taskId) ?? taskId}</td>
                      <td data-label="Stages">{stages.map(stageLabel).join(', ') || '—'}</td>
                      <td data-label="Enforcement">
                        {attachment.attributes['enforcement-level'] === 'mandatory'
                          ? 'Mandatory: a failure waits for an override'
                          : 'Advisory: a failure is only reported'}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )
        }
      </Loader>
    </section>
  );
}
