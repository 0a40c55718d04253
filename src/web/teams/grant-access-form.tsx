import { useState } from 'preact/hooks';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton } from '../components/form-parts';
import { useSession } from '../session/session-context';
import { AccessLevelFields } from './access-level-fields';
import { attributesOf, choiceOf, FLAG_KEYS, RANKED_KEYS, type AccessChoice } from './workspace-access-model';

/**
 * Gives a team access to a workspace (`POST /team-workspaces`): pick the other side (a workspace on a team's page,
 * a team on a workspace's page) among those `options` the caller may grant, then the level.
 */
export function GrantAccessForm(props: {
  idPrefix: string;
  heading: string;
  /** What is picked: "Workspace" or "Team". */
  pick: string;
  options: readonly { id: string; name: string }[];
  /** The relationships of the new access for the picked id. */
  relationships: (pickedId: string) => { team: string; workspace: string };
  /** Called with the picked name once given: the section says so (this form may go when nothing is left to pick). */
  onGranted: (pickedName: string) => void;
}) {
  const { api } = useSession();
  const [picked, setPicked] = useState('');
  const [choice, setChoice] = useState<AccessChoice>(choiceOf(undefined));
  const grant = useAction();
  const pickedName = props.options.find((option) => option.id === picked)?.name ?? '';

  async function submit(event: Event) {
    event.preventDefault();
    const { team, workspace } = props.relationships(picked);
    const done = await grant.run(
      () =>
        api.post('/team-workspaces', {
          data: {
            type: 'team-workspaces',
            attributes: attributesOf(choice),
            relationships: { team: { data: { type: 'teams', id: team } }, workspace: { data: { type: 'workspaces', id: workspace } } },
          },
        }),
    );
    if (done) {
      setPicked('');
      setChoice(choiceOf(undefined));
      props.onGranted(pickedName);
    }
  }

  const headingId = `${props.idPrefix}-heading`;
  const pickId = `${props.idPrefix}-pick`;
  return (
    <form class="stacked subsection" onSubmit={submit} aria-labelledby={headingId}>
      <h3 id={headingId}>{props.heading}</h3>
      <label for={pickId}>{props.pick}</label>
      <select id={pickId} required value={picked} onChange={(event) => setPicked((event.target as HTMLSelectElement).value)}>
        <option value="">Choose a {props.pick.toLowerCase()}</option>
        {props.options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.name}
          </option>
        ))}
      </select>
      <AccessLevelFields idPrefix={props.idPrefix} choice={choice} onChoice={setChoice} error={grant.error} />
      <ActionOutcome action={grant} placed={['access', ...RANKED_KEYS.map(({ key }) => key), ...FLAG_KEYS.map(({ key }) => key)]} />
      <SubmitButton busy={grant.busy} busyLabel="Giving access…" incomplete={!picked}>
        Give access
      </SubmitButton>
    </form>
  );
}
