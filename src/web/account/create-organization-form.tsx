import { useState } from 'preact/hooks';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ErrorNotice, FieldErrors } from '../components/page-states';
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
  const nameError = (create.error?.forField('name').length ?? 0) > 0;
  const emailError = (create.error?.forField('email').length ?? 0) > 0;
  return (
    <section aria-labelledby="create-organization-heading">
      <h2 id="create-organization-heading">{props.first ? 'Create your first organization' : 'Create an organization'}</h2>
      <form class="stacked" onSubmit={submit}>
        <label for="new-organization-name">Organization name</label>
        <input
          id="new-organization-name"
          required
          value={name}
          onInput={(event) => setName((event.target as HTMLInputElement).value)}
          aria-invalid={nameError ? 'true' : undefined}
          aria-describedby={nameError ? 'new-organization-name-error' : 'new-organization-name-hint'}
        />
        <p id="new-organization-name-hint" class="muted">
          Letters, digits, - and _. You become a member of its owners team.
        </p>
        <FieldErrors id="new-organization-name-error" error={create.error} field="name" />
        <label for="new-organization-email">Contact email</label>
        <input
          id="new-organization-email"
          type="email"
          required
          value={email}
          onInput={(event) => setEmail((event.target as HTMLInputElement).value)}
          aria-invalid={emailError ? 'true' : undefined}
          aria-describedby={emailError ? 'new-organization-email-error' : undefined}
        />
        <FieldErrors id="new-organization-email-error" error={create.error} field="email" />
        {create.error && !nameError && !emailError && <ErrorNotice error={create.error} />}
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create organization'}
        </button>
      </form>
    </section>
  );
}
