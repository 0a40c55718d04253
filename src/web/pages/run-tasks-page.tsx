import { segment } from '../api/api-client';
import type { ListDocument, Resource } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { EmptyState, Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import { RunTaskControls } from '../runtasks/run-task-controls';
import { RunTaskForm } from '../runtasks/run-task-form';
import type { Document } from '../api/jsonapi-types';
import type { OrganizationAttributes } from '../session/session-context';
import { relatedId, stageLabel, type RunTask, type RunTaskAttributes, type WorkspaceAttributes, type WorkspaceTaskAttributes } from '../workspaces/workspace-types';

/** An organization's run tasks, and for each the workspaces it is attached to, at which stages and how strictly. */
export function RunTasksPage(props: { organization: string }) {
  const { api } = useSession();
  const tasks = useApi(
    () =>
      api.get<ListDocument<RunTaskAttributes>>(`/organizations/${segment(props.organization)}/tasks`, {
        include: 'workspace_tasks.workspace',
        'page[size]': '100',
      }),
    [props.organization],
  );
  const organization = useApi(() => api.get<Document<OrganizationAttributes>>(`/organizations/${segment(props.organization)}`), [props.organization]);
  const canManage = organization.data?.data.attributes.permissions?.['can-manage-run-tasks'] === true;
  return (
    <>
      <PageTitle>{`Run tasks of ${props.organization}`}</PageTitle>
      <Loader result={tasks} what="run tasks">
        {(document) => {
          if (document.data.length === 0) {
            return (
              <EmptyState>
                This organization has no run task.{' '}
                {canManage ? 'Register one below, then attach it to workspaces on their pages.' : 'Someone who manages run tasks can register one.'}
              </EmptyState>
            );
          }
          const included = document.included ?? [];
          return (
            <ul class="cards task-cards">
              {document.data.map((task) => {
                const attachmentIds = ((task.relationships?.['workspace-tasks']?.data as { id: string }[] | undefined) ?? []).map((ref) => ref.id);
                const attachments = included.filter(
                  (resource) => resource.type === 'workspace-tasks' && attachmentIds.includes(resource.id),
                ) as unknown as Resource<WorkspaceTaskAttributes>[];
                return (
                  <li key={task.id}>
                    <h2>{task.attributes.name}</h2>
                    <dl class="facts">
                      <dt>Status</dt>
                      <dd>{task.attributes.enabled ? 'Enabled' : 'Disabled (runs skip it)'}</dd>
                      <dt>Service</dt>
                      <dd class="break">{task.attributes.url}</dd>
                      {task.attributes.description && (
                        <>
                          <dt>Description</dt>
                          <dd>{task.attributes.description}</dd>
                        </>
                      )}
                    </dl>
                    {attachments.length === 0 ? (
                      <p class="muted">Attached to no workspace.</p>
                    ) : (
                      <table class="list">
                        <caption>Workspaces using {task.attributes.name}</caption>
                        <thead>
                          <tr>
                            <th scope="col">Workspace</th>
                            <th scope="col">Stages</th>
                            <th scope="col">Enforcement</th>
                          </tr>
                        </thead>
                        <tbody>
                          {attachments.map((attachment) => {
                            const workspaceId = relatedId(attachment, 'workspace') ?? '';
                            const workspace = included.find((resource) => resource.type === 'workspaces' && resource.id === workspaceId) as
                              | Resource<WorkspaceAttributes>
                              | undefined;
                            return (
                              <tr key={attachment.id}>
                                <td data-label="Workspace">
                                  <a href={href(workspace ? paths.workspace(props.organization, workspace.attributes.name) : paths.workspaceById(workspaceId))}>{workspace?.attributes.name ?? workspaceId}</a>
                                </td>
                                <td data-label="Stages">{(attachment.attributes.stages ?? []).map(stageLabel).join(', ')}</td>
                                <td data-label="Enforcement">{attachment.attributes['enforcement-level'] === 'mandatory' ? 'Mandatory' : 'Advisory'}</td>
                              </tr>
                            );
                          })}
                        </tbody>
                      </table>
                    )}
                    {canManage && <RunTaskControls organization={props.organization} task={task as RunTask} attached={attachments.length} onChanged={tasks.reload} />}
                  </li>
                );
              })}
            </ul>
          );
        }}
      </Loader>
      {canManage && (
        <section aria-labelledby="register-task-heading">
          <h2 id="register-task-heading">Register a run task</h2>
          <RunTaskForm organization={props.organization} onSaved={tasks.reload} />
        </section>
      )}
    </>
  );
}
