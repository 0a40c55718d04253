import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import { useAction } from '../api/use-action';
import { ErrorNotice } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { Run } from './run-types';

const ACTIONS = [
  { action: 'apply', label: 'Apply', allowed: (run: Run) => run.attributes.actions['is-confirmable'] && run.attributes.permissions['can-apply'] },
  { action: 'discard', label: 'Discard', allowed: (run: Run) => run.attributes.actions['is-discardable'] && run.attributes.permissions['can-discard'] },
  { action: 'cancel', label: 'Cancel run', allowed: (run: Run) => run.attributes.actions['is-cancelable'] && run.attributes.permissions['can-cancel'] },
] as const;

/**
 * Apply, Discard and Cancel, each offered only when the run's `actions` say it is possible now and its
 * `permissions` say the caller may; an optional comment goes with the action.
 */
export function RunActions(props: { run: Run; onDone: () => void }) {
  const { api } = useSession();
  const [comment, setComment] = useState('');
  const act = useAction();
  const offered = ACTIONS.filter((entry) => entry.allowed(props.run));
  if (offered.length === 0) return null;
  async function perform(action: string, label: string) {
    const done = await act.run(
      () => api.post(`/runs/${segment(props.run.id)}/actions/${action}`, { comment: comment.trim() || null }),
      `${label}: asked. The page follows the run.`,
    );
    if (done) {
      setComment('');
      props.onDone();
    }
  }
  return (
    <section aria-labelledby="run-actions-heading" class="run-actions">
      <h2 id="run-actions-heading">Decide</h2>
      <div class="stacked">
        <label for="run-action-comment">Comment (optional)</label>
        <textarea id="run-action-comment" rows={2} cols={50} value={comment} onInput={(event) => setComment((event.target as HTMLTextAreaElement).value)} />
      </div>
      <div class="inline-form">
        {offered.map((entry) => (
          <button
            key={entry.action}
            type="button"
            class={entry.action === 'apply' ? undefined : 'danger'}
            disabled={act.busy}
            onClick={() => void perform(entry.action, entry.label)}
          >
            {entry.label}
          </button>
        ))}
      </div>
      {act.message && (
        <p role="status" class="notice notice-ok">
          {act.message}
        </p>
      )}
      {act.error && <ErrorNotice error={act.error} what="run" />}
    </section>
  );
}
