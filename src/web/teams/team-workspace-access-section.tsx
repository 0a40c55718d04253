import { useState } from 'preact/hooks';
import { getAllPages } from '../api/all-pages';
import { segment } from '../api/api-client';
import type { Resource } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ActionOutcome, ConfirmedButton, useRowConfirmation } from '../components/form-parts';
import { ListTable } from '../components/list-table';
import { EmptyState, Loader } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import { relatedId, type WorkspaceAttributes } from '../workspaces/workspace-types';
import { ChangeAccessForm } from './change-access-form';
import { GrantAccessForm } from './grant-access-form';
import type { Team } from './team-types';
import { organizationReach } from '../workspaces/organization-reach';
import { accessWords, type TeamWorkspaceAttributes } from './workspace-access-model';

/**
 * The team's access to single workspaces (`/team-workspaces?filter[team][id]=…`), in words, each workspace linked.
 * Who may give, change or remove an access is the workspace's admins (the access table's `manage-team-access`,
 * shown to the caller as the workspace's `can-update`): the controls appear for those workspaces only, and a
 * refusal the server still makes is shown as it comes.
 */
export function TeamWorkspaceAccessSection(props: { team: Team; organization: string }) {
  const { api } = useSession();
  const { team, organization } = props;
  const accesses = useApi(
    () => getAllPages<TeamWorkspaceAttributes>(api, '/team-workspaces', { 'filter[team][id]': team.id }),
    [team.id],
  );
  // The accesses name their workspace by id only; the organization's workspaces give names and the caller's permissions.
  const workspaces = useApi(
    () => getAllPages<WorkspaceAttributes>(api, `/organizations/${segment(organization)}/workspaces`),
    [organization],
  );
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const remove = useAction();
  const confirmRow = useRowConfirmation(remove.busy);
  const byId = new Map((workspaces.data?.data ?? []).map((workspace) => [workspace.id, workspace]));
  const nameOf = (id: string) => byId.get(id)?.attributes.name ?? id;
  const mayManage = (id: string) => byId.get(id)?.attributes.permissions?.['can-update'] === true;
  const granted = new Set((accesses.data?.data ?? []).map((access) => relatedId(access, 'workspace')));
  const grantable = (workspaces.data?.data ?? [])
    .filter((workspace) => workspace.attributes.permissions?.['can-update'] === true && !granted.has(workspace.id))
    .map((workspace) => ({ id: workspace.id, name: workspace.attributes.name }));
  const anyRowManageable = (rows: readonly Resource<TeamWorkspaceAttributes>[]) => rows.some((access) => mayManage(relatedId(access, 'workspace') ?? ''));
  const anyManageable = (workspaces.data?.data ?? []).some((workspace) => workspace.attributes.permissions?.['can-update'] === true);

  async function removeAccess(id: string, workspaceName: string) {
    setNotice(null);
    const done = await remove.run(() => api.delete(`/team-workspaces/${segment(id)}`), `${team.attributes.name} no longer has access to ${workspaceName}.`);
    if (done) {
      if (editing === id) setEditing(null);
      accesses.reload();
    }
  }

  const reach = organizationReach(team.attributes['organization-access'] ?? {});
  const editingRow = accesses.data?.data.find((access) => access.id === editing);
  return (
    <section aria-labelledby="team-workspace-access-heading">
      <h2 id="team-workspace-access-heading">Workspace access</h2>
      <p class="muted">
        Access to single workspaces. The team's organization access above reaches every workspace, and the stronger of the two wins
        {reach ? `: through it (${reach.because}) this team already has ${reach.access.charAt(0).toLowerCase()}${reach.access.slice(1)} on every workspace.` : '.'}
      </p>
      <Loader result={accesses} what="workspace access of the team">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>
              {team.attributes.name} has no access to single workspaces{anyManageable ? '; give it some below.' : '.'}
            </EmptyState>
          ) : (
            <ListTable caption={`Workspace access of ${team.attributes.name}`} columns={['Workspace', 'Access']} actions={anyRowManageable(document.data)}>
              {document.data.map((access) => {
                const workspaceId = relatedId(access, 'workspace') ?? '';
                const name = nameOf(workspaceId);
                return (
                  <tr key={access.id}>
                    <td data-label="Workspace">{byId.has(workspaceId) ? <a href={href(paths.workspace(organization, name))}>{name}</a> : name}</td>
                    <td data-label="Access">{accessWords(access.attributes)}</td>
                    {mayManage(workspaceId) ? (
                      <td class="row-actions">
                        <button type="button" class="secondary" aria-label={`Change access to ${name}`} onClick={() => (setNotice(null), setEditing(access.id))}>
                          Change
                        </button>{' '}
                        <ConfirmedButton
                          label="Remove"
                          accessibleName={`Remove access to ${name}`}
                          question={`Remove ${team.attributes.name}'s access to ${name}?`}
                          confirmLabel={`Remove access to ${name} now`}
                          {...confirmRow(access.id, () => void removeAccess(access.id, name))}
                        />
                      </td>
                    ) : (
                      anyRowManageable(document.data) && <td />
                    )}
                  </tr>
                );
              })}
            </ListTable>
          )
        }
      </Loader>
      <ActionOutcome action={remove} />
      {notice && (
        <p role="status" class="notice notice-ok">
          {notice}
        </p>
      )}
      {editingRow && (
        <ChangeAccessForm
          key={editingRow.id}
          idPrefix="change-workspace-access"
          accessId={editingRow.id}
          subject={`${team.attributes.name} to ${nameOf(relatedId(editingRow, 'workspace') ?? '')}`}
          attributes={editingRow.attributes}
          onCancel={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            remove.clear();
            setNotice(`Access of ${team.attributes.name} to ${nameOf(relatedId(editingRow, 'workspace') ?? '')} saved.`);
            accesses.reload();
          }}
        />
      )}
      {workspaces.state === 'ok' && anyManageable && (
        grantable.length === 0 ? (
          <p class="muted">{team.attributes.name} has access to every workspace you administer.</p>
        ) : (
          <GrantAccessForm
            idPrefix="grant-workspace-access"
            heading="Give access to a workspace"
            pick="Workspace"
            options={grantable}
            relationships={(workspace) => ({ team: team.id, workspace })}
            onGranted={(workspaceName) => (remove.clear(), setNotice(`${team.attributes.name} now has access to ${workspaceName}.`), accesses.reload())}
          />
        )
      )}
    </section>
  );
}
