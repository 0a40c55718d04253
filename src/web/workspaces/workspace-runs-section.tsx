import { useEffect } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { EmptyState, Loader } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { StatusBadge, Time } from '../runs/status-badge';
import type { RunAttributes } from '../runs/run-types';
import { useSession } from '../session/session-context';
import { relatedId, type Workspace } from './workspace-types';
import { isTerminalRunStatus } from '../../shared/run-statuses.js';
import { ListTable } from '../components/list-table';

/** Statuses after which a run in the list is not expected to change (an `applied` run may still run post-apply tasks). */
const atRest = (status: string): boolean => isTerminalRunStatus(status) || status === 'applied';

/** A workspace's runs, newest first; the list reads itself again every few seconds while one is moving. */
export function WorkspaceRunsSection(props: { workspace: Workspace }) {
  const { api } = useSession();
  const organization = relatedId(props.workspace, 'organization') ?? '';
  const runs = useApi(
    () => api.get<ListDocument<RunAttributes>>(`/workspaces/${segment(props.workspace.id)}/runs`, { 'page[size]': '50' }),
    [props.workspace.id],
  );
  const moving = (runs.data?.data ?? []).some((run) => !atRest(run.attributes.status));
  const { reload } = runs;
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(reload, 3000);
    return () => clearInterval(timer);
  }, [moving, reload]);
  return (
    <section aria-labelledby="workspace-runs-heading">
      <h2 id="workspace-runs-heading">Runs</h2>
      <Loader result={runs} what="runs">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>No run in this workspace yet. Runs are queued by Terraform, a pipeline, or POST /runs.</EmptyState>
          ) : (
            <ListTable caption={`Runs of ${props.workspace.attributes.name}, newest first`} columns={['Run', 'Status', 'Message', 'Created']}>
                {document.data.map((run) => (
                  <tr key={run.id}>
                    <td data-label="Run">
                      <a href={href(paths.run(organization, props.workspace.attributes.name, run.id))}>{run.id}</a>
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={run.attributes.status} />
                    </td>
                    <td data-label="Message">{run.attributes.message || <span class="muted">—</span>}</td>
                    <td data-label="Created">
                      <Time iso={run.attributes['created-at']} />
                    </td>
                  </tr>
                ))}
            </ListTable>
          )
        }
      </Loader>
    </section>
  );
}
