import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { ListDocument, Resource } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ActionOutcome, ConfirmedButton, useRowConfirmation } from '../components/form-parts';
import { EmptyState, ErrorNotice } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { Team } from './team-types';
import { ListTable } from '../components/list-table';

interface Member {
  membershipId: string;
  username: string;
  email: string | null;
}

/** The team's people (from its included memberships and users), with add and remove when allowed. */
export function TeamMembersSection(props: { team: Team; included: Resource[]; onChanged: () => void }) {
  const { api } = useSession();
  const { team } = props;
  const canChange = team.attributes.permissions['can-update-membership'] === true;
  const members = membersOf(team, props.included);
  const serviceAccounts = team.attributes['users-count'] - team.attributes['non-service-users-count'];
  const change = useAction();
  // Removing takes two clicks: "Remove" asks, "Remove <name> now" acts (as revoking a token does).
  const confirmRow = useRowConfirmation(change.busy);

  async function remove(member: Member) {
    const done = await change.run(
      () => api.delete(`/teams/${segment(team.id)}/relationships/organization-memberships`, { data: [{ type: 'organization-memberships', id: member.membershipId }] }),
      `${member.username} removed from the team.`,
    );
    if (done) props.onChanged();
  }

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      {members.length === 0 ? (
        <EmptyState>This team has no members yet.{canChange && ' Add one of the organization’s members below.'}</EmptyState>
      ) : (
        <ListTable caption={`Members of ${team.attributes.name}`} columns={['User', 'Email']} actions={canChange}>
            {members.map((member) => (
              <tr key={member.membershipId}>
                <td data-label="User">{member.username}</td>
                <td data-label="Email">{member.email ?? <span class="muted">hidden</span>}</td>
                {canChange && (
                  <td>
                    <ConfirmedButton
                      label="Remove"
                      accessibleName={`Remove ${member.username}`}
                      question={`Remove ${member.username} from ${team.attributes.name}?`}
                      confirmLabel={`Remove ${member.username} now`}
                      disableWhileBusy
                      {...confirmRow(member.membershipId, () => void remove(member))}
                    />
                  </td>
                )}
              </tr>
            ))}
        </ListTable>
      )}
      {serviceAccounts > 0 && (
        <p class="muted">
          Not listed: the team's <code>api-team_</code> service account, which its team token acts as.
        </p>
      )}
      <ActionOutcome action={change} />
      {canChange && <AddMemberForm team={team} current={members} onAdded={props.onChanged} />}
    </section>
  );
}

function membersOf(team: Team, included: Resource[]): Member[] {
  const users = new Map(included.filter((resource) => resource.type === 'users').map((user) => [user.id, user.attributes]));
  const ids = (team.relationships?.['organization-memberships']?.data ?? []) as { id: string }[];
  const memberships = new Map(included.filter((resource) => resource.type === 'organization-memberships').map((resource) => [resource.id, resource]));
  return ids
    .map(({ id }) => {
      const membership = memberships.get(id);
      const userId = (membership?.relationships?.user?.data as { id: string } | undefined)?.id;
      const user = userId ? users.get(userId) : undefined;
      return {
        membershipId: id,
        username: (user?.username as string | undefined) ?? userId ?? id,
        email: (membership?.attributes.email as string | null | undefined) ?? null,
      };
    })
    .sort((a, b) => a.username.localeCompare(b.username));
}

/** Adds one of the organization's active members who is not in the team yet. */
function AddMemberForm(props: { team: Team; current: Member[]; onAdded: () => void }) {
  const { api } = useSession();
  const organization = (props.team.relationships?.organization?.data as { id: string } | undefined)?.id ?? '';
  const candidates = useApi(
    () =>
      api.get<ListDocument<{ status: string; email: string | null }>>(`/organizations/${segment(organization)}/organization-memberships`, {
        include: 'user',
        'filter[status]': 'active',
        'page[size]': '100',
      }),
    [organization, props.current.length],
  );
  const [choice, setChoice] = useState('');
  const add = useAction();
  const inTeam = new Set(props.current.map((member) => member.membershipId));
  const users = new Map((candidates.data?.included ?? []).map((user) => [user.id, user.attributes.username as string]));
  const options = (candidates.data?.data ?? [])
    .filter((membership) => !inTeam.has(membership.id))
    .map((membership) => {
      const userId = (membership.relationships?.user?.data as { id: string } | undefined)?.id ?? '';
      return { id: membership.id, text: `${users.get(userId) ?? userId}${membership.attributes.email ? ` (${membership.attributes.email})` : ''}` };
    })
    .sort((a, b) => a.text.localeCompare(b.text));

  async function submit(event: Event) {
    event.preventDefault();
    if (!choice) return;
    const done = await add.run(
      () => api.post(`/teams/${segment(props.team.id)}/relationships/organization-memberships`, { data: [{ type: 'organization-memberships', id: choice }] }),
      'Member added.',
    );
    if (done) {
      setChoice('');
      props.onAdded();
    }
  }

  if (candidates.state === 'error') return <ErrorNotice error={candidates.error} what="organization members" />;
  return (
    <form onSubmit={submit} class="inline-form">
      <label for="add-member">Add a member of the organization</label>
      <select id="add-member" value={choice} onChange={(event) => setChoice((event.target as HTMLSelectElement).value)} disabled={options.length === 0}>
        <option value="">{candidates.state === 'loading' ? 'Loading…' : options.length === 0 ? 'Everyone is already in this team' : 'Choose a member'}</option>
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.text}
          </option>
        ))}
      </select>
      <button type="submit" disabled={add.busy || !choice}>
        Add to team
      </button>
      {add.error && <ErrorNotice error={add.error} />}
      {add.message && (
        <p role="status" class="notice notice-ok">
          {add.message}
        </p>
      )}
    </form>
  );
}
