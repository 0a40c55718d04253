import { useState } from 'preact/hooks';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton, TextField } from '../components/form-parts';
import { paths } from '../router/console-paths';
import { navigate } from '../router/history-router';
import { useSession } from '../session/session-context';

/** Creates an organization (`POST /organizations`); its maker becomes an owner, and its teams page opens. */
export function CreateOrganizationForm(props: { first: boolean }) {
  const { api, reloadOrganizations } = useSession();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const create = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    let made: string | null = null;
    const done = await create.run(async () => {
      const created = await api.post<Document<{ name: string }>>('/organizations', {
        data: { type: 'organizations', attributes: { name: name.trim(), email: email.trim() } },
      });
      made = created.data.id;
      await reloadOrganizations();
    });
    if (done && made) navigate(paths.teams(made));
  }
  return (
    <section aria-labelledby="create-organization-heading">
      <h2 id="create-organization-heading">{props.first ? 'Create your first organization' : 'Create an organization'}</h2>
      <form class="stacked" onSubmit={submit}>
        <TextField
          id="new-organization-name"
          label="Organization name"
          required
          value={name}
          onValue={setName}
          error={create.error}
          field="name"
          hint="Letters, digits, - and _. You become a member of its owners team."
        />
        <TextField id="new-organization-email" label="Contact email" type="email" required value={email} onValue={setEmail} error={create.error} field="email" />
        <ActionOutcome action={create} placed={['name', 'email']} />
        <SubmitButton busy={create.busy} busyLabel="Creating…">
          Create organization
        </SubmitButton>
      </form>
    </section>
  );
}
