import type { ComponentChildren } from 'preact';
import type { TeamAttributes } from './team-types';

type Visibility = TeamAttributes['visibility'];

/**
 * A team's two visibilities as radio buttons, worded once for the create form and the team page.
 * `name` groups the radios of one form; `children` go inside the fieldset (e.g. the field's errors).
 */
export function VisibilityChoice(props: { name: string; value: Visibility; onChange: (value: Visibility) => void; children?: ComponentChildren }) {
  return (
    <fieldset>
      <legend>Visibility</legend>
      <label class="choice">
        <input type="radio" name={props.name} checked={props.value === 'secret'} onChange={() => props.onChange('secret')} />
        Secret: only its members and those who manage teams see it
      </label>
      <label class="choice">
        <input type="radio" name={props.name} checked={props.value === 'organization'} onChange={() => props.onChange('organization')} />
        Visible to every member of the organization
      </label>
      {props.children}
    </fieldset>
  );
}
