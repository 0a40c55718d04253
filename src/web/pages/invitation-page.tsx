import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ErrorNotice } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href, navigate } from '../router/history-router';
import { useSession } from '../session/session-context';

type Membership = Document<{ status: string; email: string | null }>;

/**
 * An invitation link (`/app/invitations/ou-…`): the invited person, signed in with their own token, accepts
 * it (`POST /organization-memberships/:id/actions/accept`) and lands in the organization. Until then the API
 * may not show them the invitation itself (it answers 404 to anyone but the organization's managers), so
 * the page offers the acceptance either way and names the organization when it can.
 */
export function InvitationPage(props: { membershipId: string }) {
  const { api, reloadOrganizations } = useSession();
  const membership = useApi(() => api.get<Membership>(`/organization-memberships/${segment(props.membershipId)}`).catch(() => null), [props.membershipId]);
  const accept = useAction();
  if (membership.state === 'loading') return <p role="status" class="muted">Loading the invitation…</p>;
  const known = membership.data?.data;
  const organization = (known?.relationships?.organization?.data as { id: string } | undefined)?.id;
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
          This invitation is accepted: {known.attributes.email ?? 'its person'} is a member of {organization}.{' '}
          <a href={href(paths.teams(organization))}>Its teams</a>
        </p>
      </>
    );
  }
  return (
    <>
      <PageTitle>{organization ? `Invitation to ${organization}` : 'Your invitation'}</PageTitle>
      <p>
        {organization ? (
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
