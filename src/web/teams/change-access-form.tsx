import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton } from '../components/form-parts';
import { useSession } from '../session/session-context';
import { AccessLevelFields } from './access-level-fields';
import { attributesOf, choiceOf, FLAG_KEYS, RANKED_KEYS, type AccessChoice, type TeamWorkspaceAttributes } from './workspace-access-model';

/** Changes one team access (`PATCH /team-workspaces/:id`): the level, or custom keys. */
export function ChangeAccessForm(props: {
  idPrefix: string;
  accessId: string;
  /** "platform on network", for the heading and the success line. */
  subject: string;
  attributes: TeamWorkspaceAttributes;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const { api } = useSession();
  const [choice, setChoice] = useState<AccessChoice>(choiceOf(props.attributes));
  const save = useAction();
  const headingId = `${props.idPrefix}-heading`;

  async function submit(event: Event) {
    event.preventDefault();
    const done = await save.run(
      () => api.patch(`/team-workspaces/${segment(props.accessId)}`, { data: { type: 'team-workspaces', attributes: attributesOf(choice) } }),
    );
    if (done) props.onSaved();
  }

  return (
    <form class="stacked subsection edit-panel" onSubmit={submit} aria-labelledby={headingId}>
      <h3 id={headingId}>Change the access of {props.subject}</h3>
      <AccessLevelFields idPrefix={props.idPrefix} choice={choice} onChoice={setChoice} error={save.error} />
      <ActionOutcome action={save} placed={['access', ...RANKED_KEYS.map(({ key }) => key), ...FLAG_KEYS.map(({ key }) => key)]} />
      <div class="form-buttons">
        <SubmitButton busy={save.busy} busyLabel="Saving…">
          Save access
        </SubmitButton>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
