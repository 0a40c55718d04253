import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton, TextField } from '../components/form-parts';
import { FieldErrors } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { Team } from './team-types';
import { VisibilityChoice } from './visibility-choice';

/** The fields that show the server's refusal of them (the token checkbox has no line of its own: its refusal goes in the notice). */
const SETTINGS_FIELDS = ['name', 'visibility'];

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
  return (
    <section aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <form onSubmit={submit} class="stacked">
        {can['can-update-name'] ? (
          <>
            <TextField id="team-name" label="Team name" required value={name} onValue={setName} error={save.error} field="name" />
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
        <ActionOutcome action={save} placed={SETTINGS_FIELDS} />
        <SubmitButton busy={save.busy} busyLabel="Saving…">
          Save settings
        </SubmitButton>
      </form>
    </section>
  );
}
