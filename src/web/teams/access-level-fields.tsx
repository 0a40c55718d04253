import type { ApiError } from '../api/api-client';
import { refuses } from '../components/form-parts';
import { FieldErrors } from '../components/page-states';
import { ACCESS_LEVELS, FLAG_KEYS, RANKED_KEYS, type AccessChoice, type AccessLevel } from './workspace-access-model';

/**
 * The level of a team's access to a workspace (radio buttons, each with what it allows) and, for `custom`,
 * each custom key as a labelled control. `idPrefix` keeps two of these on one page apart. The server's refusal
 * of a key is shown at its control (its `source.pointer` names the attribute).
 */
export function AccessLevelFields(props: { idPrefix: string; choice: AccessChoice; onChoice: (choice: AccessChoice) => void; error: ApiError | null }) {
  const { choice, idPrefix, error } = props;
  const setLevel = (access: AccessLevel) => props.onChoice({ ...choice, access });
  const setKey = (key: string, value: string | boolean) => props.onChoice({ ...choice, custom: { ...choice.custom, [key]: value } });
  const accessRefused = refuses(error, 'access');
  return (
    <>
      <fieldset aria-describedby={accessRefused ? `${idPrefix}-access-error` : undefined}>
        <legend>Access level</legend>
        {ACCESS_LEVELS.map((level) => (
          <label class="choice" key={level.value}>
            <input type="radio" name={`${idPrefix}-level`} value={level.value} checked={choice.access === level.value} onChange={() => setLevel(level.value)} />
            <span>
              {level.label} <span class="muted">— {level.hint}</span>
            </span>
          </label>
        ))}
        <FieldErrors id={`${idPrefix}-access-error`} error={error} field="access" />
      </fieldset>
      {choice.access === 'custom' && (
        <fieldset class="custom-access">
          <legend>Custom permissions</legend>
          <div class="custom-keys">
            {RANKED_KEYS.map(({ key, label, values }) => {
              const id = `${idPrefix}-${key}`;
              const refused = refuses(error, key);
              return (
                <div key={key} class="custom-key">
                  <label for={id}>{label}</label>
                  <select
                    id={id}
                    value={choice.custom[key]}
                    onChange={(event) => setKey(key, (event.target as HTMLSelectElement).value)}
                    aria-invalid={refused ? 'true' : undefined}
                    aria-describedby={refused ? `${id}-error` : undefined}
                  >
                    {values.map(([value, words]) => (
                      <option key={value} value={value}>
                        {words}
                      </option>
                    ))}
                  </select>
                  <FieldErrors id={`${id}-error`} error={error} field={key} />
                </div>
              );
            })}
          </div>
          {FLAG_KEYS.map(({ key, label }) => (
            <label class="choice" key={key}>
              <input type="checkbox" checked={choice.custom[key]} onChange={(event) => setKey(key, (event.target as HTMLInputElement).checked)} />
              {label}
            </label>
          ))}
        </fieldset>
      )}
    </>
  );
}
