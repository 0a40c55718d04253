import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ErrorNotice, FieldErrors } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { Team } from './team-types';
import { VisibilityChoice } from './visibility-choice';

/** Name, visibility and member token management: each control shown only when `permissions` allow it. */
export function TeamSettingsForm(props: { team: Team; onSaved: () => void }) {
  const { api } = useSession();
  const { attributes } = props.team;
  const can = attributes.permissions;
  const [name, setName] = useState(attributes.name);
  const [visibility, setVisibility] = useState(attributes.visibility);
  const [tokenManagement, setTokenManagement] = useState(attributes['allow-member-token-management']);
  const save = useAction();
  const editable = can['can-update-name'] || can['can-update-visibility'] || can['can-update-member-token-management'];

  async function submit(event: Event) {
    event.preventDefault();
    const changes: Record<string, unknown> = {};
    if (can['can-update-name'] && name.trim() !== attributes.name) changes.name = name.trim();
    if (can['can-update-visibility'] && visibility !== attributes.visibility) changes.visibility = visibility;
    if (can['can-update-member-token-management'] && tokenManagement !== attributes['allow-member-token-management'])
      changes['allow-member-token-management'] = tokenManagement;
    const saved = await save.run(
      () => api.patch(`/teams/${segment(props.team.id)}`, { data: { type: 'teams', attributes: changes } }),
      'Settings saved.',
    );
    if (saved) props.onSaved();
  }

  if (!editable) {
    return (
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        <dl class="facts">
          <dt>Visibility</dt>
          <dd>{attributes.visibility === 'secret' ? 'Secret' : 'Visible to the organization'}</dd>
          <dt>Members manage team tokens</dt>
          <dd>{attributes['allow-member-token-management'] ? 'Yes' : 'No'}</dd>
        </dl>
      </section>
    );
  }
  const nameError = (save.error?.forField('name').length ?? 0) > 0;
  const placed = ['name', 'visibility', 'allow-member-token-management'].some((field) => (save.error?.forField(field).length ?? 0) > 0);
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <form onSubmit={submit} class="stacked">
        {can['can-update-name'] ? (
          <>
            <label for="team-name">Team name</label>
            <input
              id="team-name"
              required
              value={name}
              onInput={(event) => setName((event.target as HTMLInputElement).value)}
              aria-invalid={nameError ? 'true' : undefined}
              aria-describedby={nameError ? 'team-name-error' : undefined}
            />
            <FieldErrors id="team-name-error" error={save.error} field="name" />
          </>
        ) : (
          <p class="muted">The name of this team cannot be changed by you.</p>
        )}
        {can['can-update-visibility'] && (
          <VisibilityChoice name="visibility" value={visibility} onChange={setVisibility}>
            <FieldErrors id="visibility-error" error={save.error} field="visibility" />
          </VisibilityChoice>
        )}
        {can['can-update-member-token-management'] && (
          <label class="choice">
            <input type="checkbox" checked={tokenManagement} onChange={(event) => setTokenManagement((event.target as HTMLInputElement).checked)} />
            Members of this team may create and revoke its tokens
          </label>
        )}
        {save.error && !placed && <ErrorNotice error={save.error} />}
        {save.message && (
          <p role="status" class="notice notice-ok">
            {save.message}
          </p>
        )}
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save settings'}
        </button>
      </form>
    </section>
  );
}
