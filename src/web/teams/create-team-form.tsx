import { useState } from 'preact/hooks';
import { segment, type ApiError } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { toApiError } from '../api/use-api';
import { ErrorNotice, FieldErrors } from '../components/page-states';
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
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<Document<TeamAttributes>>(`/organizations/${segment(props.organization)}/teams`, {
        data: { type: 'teams', attributes: { name: name.trim(), visibility } },
      });
      navigate(paths.team(props.organization, created.data.id));
    } catch (caught) {
      setError(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }
  const nameError = error?.forField('name').length ? 'new-team-name-error' : undefined;
  return (
    <section aria-labelledby="create-team-heading">
      <h2 id="create-team-heading">Create a team</h2>
      <form onSubmit={submit} class="stacked">
        <label for="new-team-name">Team name</label>
        <input
          id="new-team-name"
          required
          value={name}
          onInput={(event) => setName((event.target as HTMLInputElement).value)}
          aria-invalid={nameError ? 'true' : undefined}
          aria-describedby={nameError}
        />
        <FieldErrors id="new-team-name-error" error={error} field="name" />
        <VisibilityChoice name="new-team-visibility" value={visibility} onChange={setVisibility} />
        {error && !nameError && <ErrorNotice error={error} />}
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create team'}
        </button>
      </form>
    </section>
  );
}
