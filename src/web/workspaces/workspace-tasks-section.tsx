import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ActionOutcome, ConfirmedButton, useRowConfirmation } from '../components/form-parts';
import { EmptyState, Loader } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { AttachTaskForm } from '../runtasks/attach-task-form';
import { useSession } from '../session/session-context';
import { relatedId, stageLabel, type RunTask, type RunTaskAttributes, type Workspace, type WorkspaceTaskAttributes } from './workspace-types';
import { ListTable } from '../components/list-table';

/**
 * The run tasks attached to a workspace: which task, at which stages, advisory or mandatory; with
 * `can-manage-run-tasks`, attach another and detach one (confirmed).
 */
export function WorkspaceTasksSection(props: { workspace: Workspace; organization: string }) {
  const { api } = useSession();
  const canManage = props.workspace.attributes.permissions?.['can-manage-run-tasks'] === true;
  const attachments = useApi(
    () => api.get<ListDocument<WorkspaceTaskAttributes>>(`/workspaces/${segment(props.workspace.id)}/tasks`, { 'page[size]': '100' }),
    [props.workspace.id],
  );
  // The attachments name their task by id only; the organization's run tasks give the names.
  const tasks = useApi(
    () => api.get<ListDocument<RunTaskAttributes>>(`/organizations/${segment(props.organization)}/tasks`, { 'page[size]': '100' }),
    [props.organization],
  );
  const detach = useAction();
  const confirmRow = useRowConfirmation(detach.busy);
  const names = new Map((tasks.data?.data ?? []).map((task) => [task.id, task.attributes.name]));
  const attachedTaskIds = new Set((attachments.data?.data ?? []).map((attachment) => relatedId(attachment, 'task')));
  const unattached = ((tasks.data?.data ?? []) as RunTask[]).filter((task) => !attachedTaskIds.has(task.id));

  async function remove(id: string, name: string) {
    const done = await detach.run(() => api.delete(`/workspaces/${segment(props.workspace.id)}/tasks/${segment(id)}`), `${name} detached.`);
    if (done) attachments.reload();
  }

  return (
    <section aria-labelledby="workspace-tasks-heading">
      <h2 id="workspace-tasks-heading">Run tasks</h2>
      <Loader result={attachments} what="run tasks of the workspace">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>
              No run task is attached to this workspace, so its runs go through no task stage.{' '}
              {canManage ? 'Attach one below; ' : ''}the organization's run tasks are listed on its{' '}
              <a href={href(paths.tasks(props.organization))}>run tasks</a> page.
            </EmptyState>
          ) : (
            <ListTable caption={`Run tasks attached to ${props.workspace.attributes.name}`} columns={['Run task', 'Stages', 'Enforcement']} actions={canManage}>
                {document.data.map((attachment) => {
                  const taskId = relatedId(attachment, 'task') ?? '';
                  const name = names.get(taskId) ?? taskId;
                  const stages = attachment.attributes.stages?.length ? attachment.attributes.stages : attachment.attributes.stage ? [attachment.attributes.stage] : [];
                  return (
                    <tr key={attachment.id}>
                      <td data-label="Run task">{name}</td>
                      <td data-label="Stages">{stages.map(stageLabel).join(', ') || '—'}</td>
                      <td data-label="Enforcement">
                        {attachment.attributes['enforcement-level'] === 'mandatory'
                          ? 'Mandatory: a failure waits for an override'
                          : 'Advisory: a failure is only reported'}
                      </td>
                      {canManage && (
                        <td>
                          <ConfirmedButton
                            label="Detach"
                            accessibleName={`Detach ${name}`}
                            question={`Detach ${name} from ${props.workspace.attributes.name}?`}
                            confirmLabel={`Detach ${name} now`}
                            {...confirmRow(attachment.id, () => void remove(attachment.id, name))}
                          />
                        </td>
                      )}
                    </tr>
                  );
                })}
            </ListTable>
          )
        }
      </Loader>
      <ActionOutcome action={detach} />
      {canManage && tasks.state === 'ok' && <AttachTaskForm workspaceId={props.workspace.id} tasks={unattached} onAttached={attachments.reload} />}
    </section>
  );
}
