import { getAllPages } from '../api/all-pages';
import { segment } from '../api/api-client';
import { useApi } from '../api/use-api';
import { ListTable } from '../components/list-table';
import { EmptyState, Loader } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import { GrantAccessForm } from '../teams/grant-access-form';
import { AccessRowActions, AccessRowsOutcome, useTeamWorkspaceRows } from '../teams/team-workspace-rows';
import type { TeamAttributes } from '../teams/team-types';
import { accessWords, type TeamWorkspaceAttributes } from '../teams/workspace-access-model';
import { organizationReach } from './organization-reach';
import { relatedId, type Workspace } from './workspace-types';

/**
 * Which teams have what on this workspace: the teams given access to it (`/team-workspaces?filter[workspace][id]=…`),
 * then the teams whose organization access reaches every workspace, labelled as such. The workspace's admins
 * (`can-update`, the access table's `manage-team-access`) give, change and remove access; others only read.
 */
export function WorkspaceTeamAccessSection(props: { workspace: Workspace; organization: string }) {
  const { api } = useSession();
  const { workspace, organization } = props;
  const canManage = workspace.attributes.permissions?.['can-update'] === true;
  const accesses = useApi(
    () => getAllPages<TeamWorkspaceAttributes>(api, '/team-workspaces', { 'filter[workspace][id]': workspace.id }),
    [workspace.id],
  );
  // The accesses name their team by id only; the teams the caller can see give names and organization access.
  const teams = useApi(
    () => getAllPages<TeamAttributes>(api, `/organizations/${segment(organization)}/teams`),
    [organization],
  );
  const rows = useTeamWorkspaceRows(accesses);
  const names = new Map((teams.data?.data ?? []).map((team) => [team.id, team.attributes.name]));
  const nameOf = (id: string) => names.get(id) ?? id;
  const granted = new Set((accesses.data?.data ?? []).map((access) => relatedId(access, 'team')));
  const grantable = (teams.data?.data ?? []).filter((team) => !granted.has(team.id)).map((team) => ({ id: team.id, name: team.attributes.name }));
  const reaching = (teams.data?.data ?? []).flatMap((team) => {
    const reach = organizationReach(team.attributes['organization-access'] ?? {});
    return reach ? [{ id: team.id, name: team.attributes.name, reach }] : [];
  });
  const wsName = workspace.attributes.name;

  return (
    <section aria-labelledby="workspace-team-access-heading">
      <h2 id="workspace-team-access-heading">Team access</h2>
      <Loader result={accesses} what="team access to the workspace">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>No team has been given access to {wsName} itself{canManage ? '; give a team access below.' : '.'}</EmptyState>
          ) : (
            <ListTable caption={`Teams given access to ${wsName}`} columns={['Team', 'Access']} actions={canManage}>
              {document.data.map((access) => {
                const teamId = relatedId(access, 'team') ?? '';
                const name = nameOf(teamId);
                return (
                  <tr key={access.id}>
                    <td data-label="Team">{names.has(teamId) ? <a href={href(paths.team(organization, teamId))}>{name}</a> : name}</td>
                    <td data-label="Access">{accessWords(access.attributes)}</td>
                    {canManage && (
                      <AccessRowActions
                        rows={rows}
                        accessId={access.id}
                        which={`of ${name}`}
                        question={`Remove ${name}'s access to ${wsName}?`}
                        removed={`${name} no longer has access to ${wsName}.`}
                      />
                    )}
                  </tr>
                );
              })}
            </ListTable>
          )
        }
      </Loader>
      <AccessRowsOutcome rows={rows} idPrefix="change-team-access" subjectOf={(row) => `${nameOf(relatedId(row, 'team') ?? '')} to ${wsName}`} />
      {reaching.length > 0 && (
        <>
          <h3 class="subsection">Through organization access</h3>
          <p class="muted">These teams' organization access reaches every workspace, {wsName} included; it is changed on each team's page.</p>
          <ListTable caption={`Teams whose organization access reaches ${wsName}`} columns={['Team', 'Access', 'Because of']}>
            {reaching.map((team) => (
              <tr key={team.id}>
                <td data-label="Team">
                  <a href={href(paths.team(organization, team.id))}>{team.name}</a>
                </td>
                <td data-label="Access">{team.reach.access}</td>
                <td data-label="Because of">{team.reach.because}</td>
              </tr>
            ))}
          </ListTable>
        </>
      )}
      {canManage && teams.state === 'ok' && (
        grantable.length === 0 ? (
          <p class="muted">Every team you can see has access to {wsName}.</p>
        ) : (
          <GrantAccessForm
            idPrefix="grant-team-access"
            heading="Give a team access"
            pick="Team"
            options={grantable}
            relationships={(team) => ({ team, workspace: workspace.id })}
            onGranted={(teamName) => rows.announce(`${teamName} now has access to ${wsName}.`)}
          />
        )
      )}
    </section>
  );
}
