import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Resource } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ActionOutcome, ConfirmedButton, useRowConfirmation } from '../components/form-parts';
import { useSession } from '../session/session-context';
import { ChangeAccessForm } from './change-access-form';
import type { TeamWorkspaceAttributes } from './workspace-access-model';

/**
 * What the team page's workspace access and the workspace page's team access share: the same team accesses
 * (`/team-workspaces`) seen from either end, each row changed in place or removed after a confirmation, and one
 * line that says what was done. Each section keeps its own words; this keeps the state and the controls.
 */
export function useTeamWorkspaceRows(accesses: { data?: { data: Resource<TeamWorkspaceAttributes>[] }; reload: () => void }) {
  const { api } = useSession();
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const remove = useAction();
  const confirmRow = useRowConfirmation(remove.busy);

  async function removeAccess(id: string, removed: string) {
    setNotice(null);
    const done = await remove.run(() => api.delete(`/team-workspaces/${segment(id)}`), removed);
    if (done) {
      if (editing === id) setEditing(null);
      accesses.reload();
    }
  }

  return {
    remove,
    confirmRow,
    notice,
    removeAccess,
    editingRow: accesses.data?.data.find((access) => access.id === editing),
    edit: (id: string) => (setNotice(null), setEditing(id)),
    stopEditing: () => setEditing(null),
    /** After a change or a grant: the removal's outcome gives way to `message`, and the list is read again. */
    announce: (message: string) => (remove.clear(), setNotice(message), accesses.reload()),
  };
}

export type TeamWorkspaceRows = ReturnType<typeof useTeamWorkspaceRows>;

/** A row's Change and Remove; `which` names the row in the buttons' words ("to network", "of platform"). */
export function AccessRowActions(props: { rows: TeamWorkspaceRows; accessId: string; which: string; question: string; removed: string }) {
  const { rows, accessId, which } = props;
  return (
    <td class="row-actions">
      <button type="button" class="secondary" aria-label={`Change access ${which}`} onClick={() => rows.edit(accessId)}>
        Change
      </button>{' '}
      <ConfirmedButton
        label="Remove"
        accessibleName={`Remove access ${which}`}
        question={props.question}
        confirmLabel={`Remove access ${which} now`}
        {...rows.confirmRow(accessId, () => void rows.removeAccess(accessId, props.removed))}
      />
    </td>
  );
}

/** Below the rows: what the last removal or change did, and the form of the row being changed. */
export function AccessRowsOutcome(props: { rows: TeamWorkspaceRows; idPrefix: string; subjectOf: (row: Resource<TeamWorkspaceAttributes>) => string }) {
  const { rows } = props;
  const row = rows.editingRow;
  return (
    <>
      <ActionOutcome action={rows.remove} />
      {rows.notice && (
        <p role="status" class="notice notice-ok">
          {rows.notice}
        </p>
      )}
      {row && (
        <ChangeAccessForm
          key={row.id}
          idPrefix={props.idPrefix}
          accessId={row.id}
          subject={props.subjectOf(row)}
          attributes={row.attributes}
          onCancel={rows.stopEditing}
          onSaved={() => (rows.stopEditing(), rows.announce(`Access of ${props.subjectOf(row)} saved.`))}
        />
      )}
    </>
  );
}
