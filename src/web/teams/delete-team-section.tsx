import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ConfirmAction } from '../components/confirm-action';
import { ErrorNotice } from '../components/page-states';
import { paths } from '../router/console-paths';
import { navigate } from '../router/history-router';
import { useSession } from '../session/session-context';
import type { Team } from './team-types';

/** Deletes the team after a confirmation that names it; offered only with `can-destroy`. */
export function DeleteTeamSection(props: { team: Team; organization: string }) {
  const { api } = useSession();
  const [confirming, setConfirming] = useState(false);
  const remove = useAction();
  if (props.team.attributes.permissions['can-destroy'] !== true) return null;
  const name = props.team.attributes.name;
  async function confirm() {
    const done = await remove.run(() => api.delete(`/teams/${segment(props.team.id)}`));
    if (done) navigate(paths.teams(props.organization));
  }
  return (
    <section aria-labelledby="delete-team-heading">
      <h2 id="delete-team-heading">Delete this team</h2>
      <p class="muted">Its members keep their organization membership but lose what the team grants; its tokens stop working.</p>
      {confirming ? (
        <ConfirmAction
          question={`Delete the team ${name}?`}
          confirmLabel={`Delete ${name} now`}
          busy={remove.busy}
          onConfirm={() => void confirm()}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Delete team
        </button>
      )}
      {remove.error && <ErrorNotice error={remove.error} what="team" />}
    </section>
  );
}
