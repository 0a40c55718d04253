import type { Document } from '../api/jsonapi-types';
import { segment } from '../api/api-client';
import { useApi } from '../api/use-api';
import { Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { useSession } from '../session/session-context';
import type { TeamAttributes } from '../teams/team-types';

/** One team: its settings, organization access, members and tokens (each offered only when permitted). */
export function TeamPage(props: { teamId: string }) {
  const { api } = useSession();
  const team = useApi(() => api.get<Document<TeamAttributes>>(`/teams/${segment(props.teamId)}`, { include: 'users' }), [props.teamId]);
  return (
    <Loader result={team} what="team">
      {(document) => (
        <>
          <PageTitle>{`Team ${document.data.attributes.name}`}</PageTitle>
          <p>{document.data.attributes.visibility === 'secret' ? 'Secret team' : 'Visible to the organization'}</p>
        </>
      )}
    </Loader>
  );
}
