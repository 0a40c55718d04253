import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useApi } from '../api/use-api';
import { useSession } from '../session/session-context';
import { plannedChanges, type ChangeAction } from './plan-changes-model';

const FIRST_FEW = 10;
const WORDS: Record<ChangeAction, string> = { create: 'create', update: 'update in place', delete: 'destroy', replace: 'replace', forget: 'forget' };
const SIGNS: Record<ChangeAction, string> = { create: '+', update: '~', delete: '−', replace: '±', forget: '−' };

/** The plan's resource changes (address and action), destructive first, the first ten shown and the rest a click away. */
export function PlanChanges(props: { planId: string }) {
  const { api } = useSession();
  const [expanded, setExpanded] = useState(false);
  // A plan with no JSON (the no-op executor's is empty, a server without it answers 404) shows nothing.
  const plan = useApi(() => api.get<unknown>(`/plans/${segment(props.planId)}/json-output`).catch(() => null), [props.planId]);
  if (plan.state !== 'ok') return null;
  const changes = plannedChanges(plan.data);
  if (changes.length === 0) return null;
  const shown = expanded ? changes : changes.slice(0, FIRST_FEW);
  return (
    <section aria-label="Planned changes" class="plan-changes">
      <ul>
        {shown.map((change) => (
          <li key={change.address} class={`change-${change.action}`}>
            <span aria-hidden="true" class="sign">
              {SIGNS[change.action]}
            </span>{' '}
            <code>{change.address}</code> <span class="action">{WORDS[change.action]}</span>
          </li>
        ))}
      </ul>
      {changes.length > FIRST_FEW && (
        <button type="button" class="secondary small" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? `Show the first ${FIRST_FEW} only` : `Show all ${changes.length} changes`}
        </button>
      )}
    </section>
  );
}
