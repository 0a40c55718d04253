import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ErrorNotice, FieldErrors } from '../components/page-states';
import { useSession } from '../session/session-context';
import { ACCESS_GROUPS, ACCESS_KEYS, impliedBy, label, ruleFor, type Access } from './access-rules';
import type { Team } from './team-types';

/**
 * A team's organization access as grouped checkboxes. Each rule is shown under its checkbox before saving
 * (and marked when the current choice breaks it); on save the server decides, and its refusal is shown at
 * the checkbox it names. Read-only (disabled, no save button) without `can-update-organization-access`.
 */
export function OrganizationAccessForm(props: { team: Team; onSaved: () => void }) {
  const { api } = useSession();
  const canEdit = props.team.attributes.permissions['can-update-organization-access'] === true;
  const [access, setAccess] = useState<Access>(() => ({ ...props.team.attributes['organization-access'] }));
  const save = useAction();
  const fieldFor = (key: string) => `organization-access/${key}`;

  async function submit(event: Event) {
    event.preventDefault();
    const sent = Object.fromEntries(ACCESS_KEYS.map((key) => [key, access[key] === true]));
    const saved = await save.run(
      () => api.patch(`/teams/${segment(props.team.id)}`, { data: { type: 'teams', attributes: { 'organization-access': sent } } }),
      'Organization access saved.',
    );
    if (saved) props.onSaved();
  }

  const unplaced = save.error && !ACCESS_KEYS.some((key) => save.error!.forField(fieldFor(key)).length > 0);
  return (
    <section aria-labelledby="access-heading">
      <h2 id="access-heading">Organization access</h2>
      {!canEdit && <p class="muted">You may not change this team's organization access.</p>}
      <form onSubmit={submit}>
        <div class="access-groups">
          {ACCESS_GROUPS.map((group) => (
            <fieldset key={group.title}>
              <legend>{group.title}</legend>
              {group.keys.map((info) => {
                const implied = impliedBy(access, info.key);
                const rule = ruleFor(access, info.key);
                const errorId = `access-${info.key}-error`;
                const hasError = (save.error?.forField(fieldFor(info.key)).length ?? 0) > 0;
                const describedBy = [`access-${info.key}-hint`, rule && `access-${info.key}-rule`, hasError && errorId].filter(Boolean).join(' ');
                return (
                  <div key={info.key} class="access-key">
                    <label class="choice">
                      <input
                        type="checkbox"
                        name={info.key}
                        checked={access[info.key] === true || implied !== undefined}
                        disabled={!canEdit || implied !== undefined}
                        aria-describedby={describedBy}
                        aria-invalid={hasError ? 'true' : undefined}
                        onChange={(event) => {
                          save.clear();
                          setAccess({ ...access, [info.key]: (event.target as HTMLInputElement).checked });
                        }}
                      />
                      {info.label}
                    </label>
                    <p id={`access-${info.key}-hint`} class="rule">
                      {info.hint}
                      {implied && ` Included with ${label(implied)}.`}
                    </p>
                    {/* Once the server refused this box, its words say the rule: the local line would repeat it. */}
                    {rule && !hasError && (
                      <p id={`access-${info.key}-rule`} class={rule.broken ? 'rule broken' : 'rule'}>
                        {rule.broken ? `Not met: ${rule.text}` : rule.text}
                      </p>
                    )}
                    <FieldErrors id={errorId} error={save.error} field={fieldFor(info.key)} />
                  </div>
                );
              })}
            </fieldset>
          ))}
        </div>
        {unplaced && save.error && <ErrorNotice error={save.error} />}
        {save.message && (
          <p role="status" class="notice notice-ok">
            {save.message}
          </p>
        )}
        {canEdit && (
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save organization access'}
          </button>
        )}
      </form>
    </section>
  );
}
