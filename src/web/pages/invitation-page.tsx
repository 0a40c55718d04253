import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ErrorNotice } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href, navigate } from '../router/history-router';
import { useSession } from '../session/session-context';
import { actorWords } from '../actors/actor-names';

type Membership = Document<{ status: string; email: string | null }>;

/**
 * An invitation link (`/app/invitations/ou-…`): the invited person, signed in with their own token, reads
 * their invitation (`GET /organization-memberships/:id/invitation`, Teamstage's: theirs alone, 404 to anyone
 * else): "alice invited you to acme", then accepts it (`POST …/actions/accept`) and lands in the organization.
 * Someone else's invitation (or one that is gone) still offers the acceptance, which the server refuses.
 */
export function InvitationPage(props: { membershipId: string }) {
  const { api, reloadOrganizations } = useSession();
  const membership = useApi(() => api.get<Membership>(`/organization-memberships/${segment(props.membershipId)}/invitation`).catch(() => null), [props.membershipId]);
  const accept = useAction();
  if (membership.state === 'loading') return <p role="status" class="muted">Loading the invitation…</p>;
  const known = membership.data?.data;
  const organization = (known?.relationships?.organization?.data as { id: string } | undefined)?.id;
  const inviter = inviterName(membership.data);
  async function submit() {
    let joined: string | undefined;
    const done = await accept.run(async () => {
      const accepted = await api.post<Membership>(`/organization-memberships/${segment(props.membershipId)}/actions/accept`);
      joined = (accepted?.data.relationships?.organization?.data as { id: string } | undefined)?.id ?? organization;
      await reloadOrganizations();
    });
    if (done) navigate(joined ? paths.teams(joined) : paths.account());
  }
  if (known?.attributes.status === 'active' && organization) {
    return (
      <>
        <PageTitle>{`Invitation to ${organization}`}</PageTitle>
        <p>
          This invitation{inviter ? ` from ${inviter}` : ''} is accepted: {known.attributes.email ?? 'its person'} is a member of {organization}.{' '}
          <a href={href(paths.teams(organization))}>Its teams</a>
        </p>
      </>
    );
  }
  return (
    <>
      <PageTitle>{organization ? `Invitation to ${organization}` : 'Your invitation'}</PageTitle>
      <p>
        {organization && inviter ? (
          <span data-testid="invited-by">
            <strong>{inviter}</strong> invited you to <strong>{organization}</strong>. Accept to join it as a member.
          </span>
        ) : organization ? (
          <>
            You are invited to join the organization <strong>{organization}</strong>.
          </>
        ) : (
          'You were sent this invitation to join an organization. Accept it, signed in as the person it was sent to, to become a member.'
        )}
      </p>
      <button type="button" disabled={accept.busy} onClick={() => void submit()}>
        Accept the invitation
      </button>
      {accept.error && <ErrorNotice error={accept.error} what="invitation" />}
    </>
  );
}

/** The inviter's name from the included user (`invited-by`), in the console's words for an actor; none when nobody is named. */
function inviterName(document: Membership | null | undefined): string | undefined {
  const reference = document?.data.relationships?.['invited-by']?.data as { id: string } | null | undefined;
  const user = reference ? document?.included?.find((resource) => resource.type === 'users' && resource.id === reference.id) : undefined;
  const username = user?.attributes.username;
  return typeof username === 'string' ? actorWords(username, new Map()) : undefined;
}
