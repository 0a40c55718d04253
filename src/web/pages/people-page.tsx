import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document, ListDocument, Resource } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ActionOutcome, CheckboxGroup, ConfirmedButton, SubmitButton, TextField, useRowConfirmation } from '../components/form-parts';
import { EmptyState, Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession, type OrganizationAttributes } from '../session/session-context';
import type { TeamAttributes } from '../teams/team-types';
import { ListTable } from '../components/list-table';

interface MembershipAttributes {
  status: 'invited' | 'active';
  email: string | null;
  /** Whether the caller may remove it (a member of the owners team: owners only). */
  permissions?: { 'can-destroy'?: boolean };
}

/**
 * An organization's people (`organization-memberships`): who is active, who is invited. Whoever the
 * organization's `can-manage-users` names (owners, `manage-membership`) invites by email (optionally into
 * the teams they may add members to) and gets the invitation link to send; each membership's own
 * `can-destroy` offers its removal (which also takes the person out of every team), after a confirmation
 * naming them.
 */
export function PeoplePage(props: { organization: string }) {
  const { api } = useSession();
  const org = segment(props.organization);
  const organization = useApi(() => api.get<Document<OrganizationAttributes>>(`/organizations/${org}`), [props.organization]);
  const memberships = useApi(
    () => api.get<ListDocument<MembershipAttributes>>(`/organizations/${org}/organization-memberships`, { include: 'user', 'page[size]': '100' }),
    [props.organization],
  );
  const mayInvite = organization.data?.data.attributes.permissions?.['can-manage-users'] === true;
  const remove = useAction();
  const confirmRow = useRowConfirmation(remove.busy);

  async function removeMembership(id: string, name: string) {
    const done = await remove.run(() => api.delete(`/organization-memberships/${segment(id)}`), `${name} removed from ${props.organization}.`);
    if (done) memberships.reload();
  }

  return (
    <>
      <PageTitle>{`People of ${props.organization}`}</PageTitle>
      <Loader result={memberships} what="people">
        {(document) => {
          const users = new Map((document.included ?? []).filter((resource) => resource.type === 'users').map((user) => [user.id, user]));
          const removable = (membership: Resource<MembershipAttributes>) => membership.attributes.permissions?.['can-destroy'] === true;
          const mayRemoveAny = document.data.some(removable);
          return document.data.length === 0 ? (
            <EmptyState>Nobody you can see belongs to this organization.</EmptyState>
          ) : (
            <ListTable caption={`People of ${props.organization}`} columns={['User', 'Email', 'Status']} actions={mayRemoveAny}>
                {document.data.map((membership) => {
                  const name = userName(membership, users);
                  return (
                    <tr key={membership.id}>
                      <td data-label="User">{name}</td>
                      <td data-label="Email">{membership.attributes.email ?? <span class="muted">hidden</span>}</td>
                      <td data-label="Status">
                        {membership.attributes.status === 'invited' ? (
                          <>
                            Invited · <a href={href(paths.invitation(membership.id))}>invitation link</a>
                          </>
                        ) : (
                          'Active'
                        )}
                      </td>
                      {mayRemoveAny && (
                        <td>
                          {removable(membership) && (
                            <ConfirmedButton
                              label="Remove"
                              accessibleName={`Remove ${name} from the organization`}
                              question={`Remove ${name} from ${props.organization} and all its teams?`}
                              confirmLabel={`Remove ${name} now`}
                              {...confirmRow(membership.id, () => void removeMembership(membership.id, name))}
                            />
                          )}
                        </td>
                      )}
                    </tr>
                  );
                })}
            </ListTable>
          );
        }}
      </Loader>
      <ActionOutcome action={remove} />
      {mayInvite && <InviteForm organization={props.organization} onInvited={memberships.reload} />}
    </>
  );
}

function userName(membership: Resource<MembershipAttributes>, users: Map<string, Resource>): string {
  const userId = (membership.relationships?.user?.data as { id: string } | undefined)?.id;
  const user = userId ? users.get(userId) : undefined;
  return (user?.attributes.username as string | undefined) ?? membership.attributes.email ?? userId ?? membership.id;
}

/** Invites by email, optionally into teams; shows the link to send (the invited person accepts there). */
function InviteForm(props: { organization: string; onInvited: () => void }) {
  const { api } = useSession();
  const teams = useApi(
    () => api.get<ListDocument<TeamAttributes>>(`/organizations/${segment(props.organization)}/teams`, { 'page[size]': '100' }),
    [props.organization],
  );
  const [email, setEmail] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [sent, setSent] = useState<{ email: string; id: string } | null>(null);
  const invite = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    let created: Document<MembershipAttributes> | undefined;
    const address = email.trim();
    const done = await invite.run(async () => {
      created = await api.post<Document<MembershipAttributes>>(`/organizations/${segment(props.organization)}/organization-memberships`, {
        data: {
          type: 'organization-memberships',
          attributes: { email: address },
          relationships: { teams: { data: chosen.map((id) => ({ type: 'teams', id })) } },
        },
      });
    });
    if (done && created) {
      setSent({ email: address, id: created.data.id });
      setEmail('');
      setChosen([]);
      props.onInvited();
    }
  }
  // Only teams the caller may add members to: an invitation into any other is refused.
  const joinable = (teams.data?.data ?? []).filter((team) => team.attributes.permissions['can-update-membership'] === true);
  const link = sent ? `${window.location.origin}${href(paths.invitation(sent.id))}` : '';
  return (
    <section aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      {sent && (
        <div class="notice notice-ok" role="status">
          <p>
            <strong>{sent.email} is invited.</strong> Send them this link; they accept it signed in with their own token:
          </p>
          <p class="secret-box">
            <a href={href(paths.invitation(sent.id))}>{link}</a>
          </p>
        </div>
      )}
      <form class="stacked" onSubmit={submit}>
        <TextField id="invite-email" label="Email" type="email" required value={email} onValue={setEmail} error={invite.error} field="email" />
        {joinable.length > 0 && (
          <CheckboxGroup
            legend="Teams to join on accepting (optional)"
            options={joinable.map((team) => ({ value: team.id, label: team.attributes.name }))}
            chosen={chosen}
            onChange={setChosen}
          />
        )}
        <ActionOutcome action={invite} placed={['email']} />
        <SubmitButton busy={invite.busy} busyLabel="Inviting…">
          Invite
        </SubmitButton>
      </form>
    </section>
  );
}
