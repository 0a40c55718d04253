import { useContext, useEffect, useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { ListDocument, Resource } from '../api/jsonapi-types';
import { TeamNamesContext } from '../actors/actor-names';
import { useSession } from '../session/session-context';

/** The workspace as the run's `include=workspace` gives it: HCP's `locked` and polymorphic `locked-by`. */
export type LockedWorkspace = Resource<{ name: string; locked?: boolean }>;

/**
 * Whether the run's workspace is locked (HCP's `actions/lock`), by whom, and what that means as the server
 * behaves (src/runs/runs.repository.ts `runsAhead`): while it is locked no queued run starts, the runs behind this
 * one included; this run already holds its turn, so deciding it (override, apply, discard) is not held by the lock.
 */
export function WorkspaceLockNote(props: { workspace: LockedWorkspace | undefined; queued: number | null }) {
  const holder = useLockHolder(props.workspace);
  if (!props.workspace?.attributes.locked) return null;
  const behind = props.queued && props.queued > 0 ? ` The ${props.queued === 1 ? 'run' : `${props.queued} runs`} queued behind this one ${props.queued === 1 ? 'waits' : 'wait'} for the unlock too.` : '';
  return (
    <p class="notice notice-warning" data-testid="workspace-lock">
      <strong>
        The workspace {props.workspace.attributes.name} is locked{holder ? ` by ${holder}` : ''}.
      </strong>{' '}
      While it is locked no queued run starts; this run already has its turn, so deciding it is not held by the lock.{behind}
    </p>
  );
}

/** The lock holder in words: you, a person by username, a team by name, the organization token, a run. */
function useLockHolder(workspace: LockedWorkspace | undefined): string | null {
  const { api, account } = useSession();
  const teams = useContext(TeamNamesContext);
  const holder = workspace?.attributes.locked ? (workspace.relationships?.['locked-by']?.data as { id: string; type: string } | null | undefined) : null;
  const organization = (workspace?.relationships?.organization?.data as { id: string } | undefined)?.id;
  const [username, setUsername] = useState<string | null>(null);
  const otherUser = holder?.type === 'users' && holder.id !== account.id && holder.id !== 'site-admin' ? holder.id : null;
  useEffect(() => {
    setUsername(null);
    if (!otherUser || !organization) return;
    let current = true;
    // Another person: their username from the organization's people (a reader who may not list them reads "a person").
    api
      .get<ListDocument>(`/organizations/${segment(organization)}/organization-memberships`, { include: 'user', 'page[size]': '100' })
      .then((document) => {
        const user = document.included?.find((resource) => resource.type === 'users' && resource.id === otherUser);
        if (current && typeof user?.attributes.username === 'string') setUsername(user.attributes.username);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [otherUser, organization]);
  if (!holder) return null;
  if (holder.type === 'users') {
    if (holder.id === account.id) return 'you';
    if (holder.id === 'site-admin') return 'the site admin';
    return username ?? 'a person of the organization';
  }
  if (holder.type === 'teams') return teams.get(holder.id) ? `the team ${teams.get(holder.id)} (its token)` : 'a team token';
  if (holder.type === 'organizations') return 'the organization token';
  if (holder.type === 'runs') return `the run ${holder.id}`;
  return null;
}
