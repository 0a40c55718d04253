import { useMemo, useState } from 'preact/hooks';
import { useApi } from '../api/use-api';
import { useSession } from '../session/session-context';
import { attributeRows, valueRow, type AttributeRow, type Shown } from './plan-attributes-model';
import { plannedChanges, plannedOutputs, type ChangeAction, type PlannedChange } from './plan-changes-model';
import { planJson } from './plan-json-cache';

const FIRST_FEW = 10;
/** Past the first few, changes are shown a page at a time: a plan of thousands of resources stays quick. */
const PAGE = 100;
const WORDS: Record<ChangeAction, string> = { create: 'create', update: 'update in place', delete: 'destroy', replace: 'replace', forget: 'forget' };
const SIGNS: Record<ChangeAction, string> = { create: '+', update: '~', delete: '−', replace: '±', forget: '−' };

/**
 * The plan, structured: its resource changes (destructive first), each opening on its attribute changes
 * (before → after, what forces a replacement, sensitive values masked, unknown ones "known after apply"),
 * its output changes, and the drift terraform found (changes made outside it). The first ten changes are
 * shown, then pages of a hundred; an attribute table is built only when its change is opened.
 */
export function PlanChanges(props: { planId: string }) {
  const { api } = useSession();
  // A plan with no JSON (the no-op executor's is empty, a server without it answers 404) shows nothing.
  // Usually already on its way: the run page asked for it with the run (plan-json-cache.ts).
  const plan = useApi(() => planJson(api, props.planId), [props.planId]);
  // Built once per plan, not at every poll of the run page (a plan of thousands of changes is sorted here).
  const model = useMemo(
    () => (plan.state === 'ok' ? { changes: plannedChanges(plan.data), drift: plannedChanges(plan.data, 'resource_drift'), outputs: plannedOutputs(plan.data) } : null),
    [plan.state, plan.data],
  );
  if (!model) return null;
  const { changes, drift, outputs } = model;
  if (changes.length === 0 && drift.length === 0 && outputs.length === 0) return null;
  return (
    <>
      {changes.length > 0 && <ChangeList label="Planned changes" changes={changes} />}
      {outputs.length > 0 && (
        <section aria-label="Output changes" class="plan-changes">
          <h4>Outputs</h4>
          <ul>
            {outputs.map((output) => (
              <li key={output.name} class={`change-${output.action}`}>
                <span aria-hidden="true" class="sign">
                  {SIGNS[output.action]}
                </span>{' '}
                <code>{output.name}</code> <span class="action">{WORDS[output.action]}</span> <ValuePair row={valueRow(output.change)} action={output.action} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {drift.length > 0 && (
        <>
          <h4>Changed outside Terraform (drift)</h4>
          <ChangeList label="Resource drift" changes={drift} />
        </>
      )}
    </>
  );
}

function ChangeList(props: { label: string; changes: PlannedChange[] }) {
  const [shownCount, setShownCount] = useState(FIRST_FEW);
  const { changes } = props;
  const shown = changes.slice(0, shownCount);
  const left = changes.length - shown.length;
  return (
    <section aria-label={props.label} class="plan-changes">
      <ul>
        {shown.map((change) => (
          <ChangeItem key={change.address} change={change} />
        ))}
      </ul>
      {left > 0 && (
        <button type="button" class="secondary small" onClick={() => setShownCount(changes.length <= PAGE ? changes.length : shownCount + PAGE)}>
          {changes.length <= PAGE ? `Show all ${changes.length} changes` : `Show ${Math.min(PAGE, left)} more (${shown.length} of ${changes.length} shown)`}
        </button>
      )}
      {shownCount > FIRST_FEW && changes.length <= PAGE && (
        <button type="button" class="secondary small" onClick={() => setShownCount(FIRST_FEW)}>
          Show the first {FIRST_FEW} only
        </button>
      )}
    </section>
  );
}

function ChangeItem(props: { change: PlannedChange }) {
  const { change } = props;
  const [open, setOpen] = useState(false);
  return (
    <li class={`change-${change.action}`}>
      <details onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <span aria-hidden="true" class="sign">
            {SIGNS[change.action]}
          </span>{' '}
          <code>{change.address}</code> <span class="action">{WORDS[change.action]}</span>
          {change.reason && <span class="muted"> ({change.reason.replace(/_/g, ' ')})</span>}
        </summary>
        {open && <AttributeTable address={change.address} rows={change.change ? attributeRows(change.change) : []} />}
      </details>
    </li>
  );
}

function AttributeTable(props: { address: string; rows: AttributeRow[] }) {
  if (props.rows.length === 0) return <p class="muted">No attribute changes.</p>;
  return (
    <table class="list attributes">
      <caption class="visually-hidden">Attribute changes of {props.address}</caption>
      <thead>
        <tr>
          <th scope="col">Attribute</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.path}>
            <td data-label="Attribute">
              <code>{row.path}</code>
              {row.forcesReplacement && <span class="tag tag-error"> forces replacement</span>}
            </td>
            <td data-label="Before">
              <ShownValue value={row.before} />
            </td>
            <td data-label="After">
              <ShownValue value={row.after} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ValuePair(props: { row: AttributeRow; action: ChangeAction }) {
  if (props.action === 'create') return <ShownValue value={props.row.after} />;
  if (props.action === 'delete') return <ShownValue value={props.row.before} />;
  return (
    <>
      <ShownValue value={props.row.before} /> → <ShownValue value={props.row.after} />
    </>
  );
}

/** A value as terraform words it: masked when sensitive, "known after apply" when unknown, null when absent. */
function ShownValue(props: { value: Shown }) {
  const { value } = props;
  if (value.kind === 'sensitive') return <span class="value-masked">(sensitive value)</span>;
  if (value.kind === 'unknown') return <span class="value-unknown">(known after apply)</span>;
  if (value.kind === 'absent') return <span class="muted">null</span>;
  return <code class="value">{value.text}</code>;
}
