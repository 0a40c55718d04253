import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton, TextField } from '../components/form-parts';
import { paths } from '../router/console-paths';
import { navigate } from '../router/history-router';
import { useSession } from '../session/session-context';
import type { TeamAttributes } from './team-types';
import { VisibilityChoice } from './visibility-choice';

/** Creates a team with a name and visibility, then opens its page (organization access is set there). */
export function CreateTeamForm(props: { organization: string }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [visibility, setVisibility] = useState<'secret' | 'organization'>('secret');
  const create = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    let created: Document<TeamAttributes> | undefined;
    const done = await create.run(async () => {
      created = await api.post<Document<TeamAttributes>>(`/organizations/${segment(props.organization)}/teams`, {
        data: { type: 'teams', attributes: { name: name.trim(), visibility } },
      });
    });
    if (done && created) navigate(paths.team(props.organization, created.data.id));
  }
  return (
    <section aria-labelledby="create-team-heading">
      <h2 id="create-team-heading">Create a team</h2>
      <form onSubmit={submit} class="stacked">
        <TextField id="new-team-name" label="Team name" required value={name} onValue={setName} error={create.error} field="name" />
        <VisibilityChoice name="new-team-visibility" value={visibility} onChange={setVisibility} />
        <ActionOutcome action={create} placed={['name']} />
        <SubmitButton busy={create.busy} busyLabel="Creating…">
          Create team
        </SubmitButton>
      </form>
    </section>
  );
}
