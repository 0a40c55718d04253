import { useEffect } from 'preact/hooks';
import type { Document } from '../api/jsonapi-types';
import { segment } from '../api/api-client';
import { useApi } from '../api/use-api';
import { ErrorNotice } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href, showCanonicalPath } from '../router/history-router';
import { useSession } from '../session/session-context';
import { DeleteTeamSection } from '../teams/delete-team-section';
import { OrganizationAccessForm } from '../teams/organization-access-form';
import { TeamMembersSection } from '../teams/team-members-section';
import { TeamSettingsForm } from '../teams/team-settings-form';
import { TeamTokensSection } from '../teams/team-tokens-section';
import { TeamWorkspaceAccessSection } from '../teams/team-workspace-access-section';
import { TeamProjectsSection } from '../projects/team-projects-section';
import type { TeamAttributes } from '../teams/team-types';

/** One team: settings, organization access, members and tokens, each offered only when `permissions` allow. */
export function TeamPage(props: { teamId: string }) {
  const { api } = useSession();
  const team = useApi(
    () => api.get<Document<TeamAttributes>>(`/teams/${segment(props.teamId)}`, { include: 'users,organization-memberships' }),
    [props.teamId],
  );
  const organizationOf = team.data?.data.relationships?.organization?.data as { id: string } | undefined;
  useEffect(() => {
    if (organizationOf) showCanonicalPath(paths.team(organizationOf.id, props.teamId));
  }, [organizationOf?.id, props.teamId]);
  if (team.state === 'loading') return <p role="status" class="muted">Loading the team…</p>;
  if (team.state === 'error') {
    return (
      <>
        <PageTitle>Team</PageTitle>
        <ErrorNotice error={team.error} what="team" />
      </>
    );
  }
  const data = team.data.data;
  const organization = (data.relationships?.organization?.data as { id: string } | undefined)?.id ?? '';
  return (
    <>
      <p class="muted">
        <a href={href(paths.teams(organization))}>Teams of {organization}</a>
      </p>
      <PageTitle>{`Team ${data.attributes.name}`}</PageTitle>
      <p>
        {data.attributes.visibility === 'secret' ? 'Secret team' : 'Visible to the organization'} ·{' '}
        {data.attributes['non-service-users-count']} {data.attributes['non-service-users-count'] === 1 ? 'member' : 'members'}
      </p>
      <TeamSettingsForm team={data} onSaved={team.reload} />
      <OrganizationAccessForm team={data} onSaved={team.reload} />
      <TeamWorkspaceAccessSection team={data} organization={organization} />
      <TeamMembersSection team={data} included={team.data.included ?? []} onChanged={team.reload} />
      <TeamProjectsSection teamId={data.id} organization={organization} />
      <TeamTokensSection team={data} />
      <DeleteTeamSection team={data} organization={organization} />
    </>
  );
}
