import { getAllPages } from '../api/all-pages';
import { segment } from '../api/api-client';
import type { Resource } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { ListTable } from '../components/list-table';
import { EmptyState, Loader } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import { relatedId, type WorkspaceAttributes } from '../workspaces/workspace-types';
import { GrantAccessForm } from './grant-access-form';
import { AccessRowActions, AccessRowsOutcome, useTeamWorkspaceRows } from './team-workspace-rows';
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
  const rows = useTeamWorkspaceRows(accesses);
  const byId = new Map((workspaces.data?.data ?? []).map((workspace) => [workspace.id, workspace]));
  const nameOf = (id: string) => byId.get(id)?.attributes.name ?? id;
  const mayManage = (id: string) => byId.get(id)?.attributes.permissions?.['can-update'] === true;
  const granted = new Set((accesses.data?.data ?? []).map((access) => relatedId(access, 'workspace')));
  const grantable = (workspaces.data?.data ?? [])
    .filter((workspace) => workspace.attributes.permissions?.['can-update'] === true && !granted.has(workspace.id))
    .map((workspace) => ({ id: workspace.id, name: workspace.attributes.name }));
  const anyRowManageable = (rows: readonly Resource<TeamWorkspaceAttributes>[]) => rows.some((access) => mayManage(relatedId(access, 'workspace') ?? ''));
  const anyManageable = (workspaces.data?.data ?? []).some((workspace) => workspace.attributes.permissions?.['can-update'] === true);

  const reach = organizationReach(team.attributes['organization-access'] ?? {});
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
                      <AccessRowActions
                        rows={rows}
                        accessId={access.id}
                        which={`to ${name}`}
                        question={`Remove ${team.attributes.name}'s access to ${name}?`}
                        removed={`${team.attributes.name} no longer has access to ${name}.`}
                      />
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
      <AccessRowsOutcome rows={rows} idPrefix="change-workspace-access" subjectOf={(row) => `${team.attributes.name} to ${nameOf(relatedId(row, 'workspace') ?? '')}`} />
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
            onGranted={(workspaceName) => rows.announce(`${team.attributes.name} now has access to ${workspaceName}.`)}
          />
        )
      )}
    </section>
  );
}
