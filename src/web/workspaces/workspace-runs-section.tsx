import { EmptyState, ErrorNotice } from '../components/page-states';
import { ListTable } from '../components/list-table';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { RelativeTime, StatusBadge } from '../runs/status-badge';
import { useNow } from '../components/use-now';
import { useSession } from '../session/session-context';
import { placeText, queuePlaces } from './run-queue-model';
import { useWatchedRuns } from './use-watched-runs';
import { relatedId, type Workspace } from './workspace-types';
import { isTerminalRunStatus } from '../../shared/run-statuses.js';

/**
 * A workspace's runs, newest first, each headed by its message with its id second; a pending run says its
 * place in the queue and the run it waits for. The list follows the server while the page is open (one
 * waiting read: use-watched-runs.ts), so a run queued by Terraform or a pipeline appears without a reload.
 */
export function WorkspaceRunsSection(props: { workspace: Workspace }) {
  const { api } = useSession();
  const organization = relatedId(props.workspace, 'organization') ?? '';
  const { list, error } = useWatchedRuns(api, props.workspace.id);
  const now = useNow();
  const runPath = (id: string) => href(paths.run(organization, props.workspace.attributes.name, id));
  const runs = list?.data ?? [];
  const places = queuePlaces(runs, isTerminalRunStatus);
  const total = list?.meta?.pagination?.['total-count'];
  return (
    <section aria-labelledby="workspace-runs-heading">
      <h2 id="workspace-runs-heading">Runs</h2>
      {error && (list ? <p role="status" class="notice notice-error">Could not refresh the runs ({error.message}); showing what was last read, and trying again.</p> : <ErrorNotice error={error} what="runs" />)}
      {!list && !error && <p role="status" class="muted">Loading the runs…</p>}
      {list && runs.length === 0 && <EmptyState>No run in this workspace yet. Runs are queued by Terraform, a pipeline, or POST /runs; they show here as they come.</EmptyState>}
      {runs.length > 0 && (
        <ListTable caption={`Runs of ${props.workspace.attributes.name}, newest first${total && total > runs.length ? ` (the newest ${runs.length} of ${total})` : ''}; this list follows new runs by itself`} columns={['Run', 'Status', 'Created']}>
          {runs.map((run) => {
            const place = places.get(run.id);
            return (
              <tr key={run.id} data-run-id={run.id}>
                <td data-label="Run">
                  <a href={runPath(run.id)}>{run.attributes.message || 'Run without a message'}</a>
                  <br />
                  <span class="muted run-id">{run.id}</span>
                </td>
                <td data-label="Status">
                  <StatusBadge status={run.attributes.status} />
                  {place && (
                    <span class="queue-place" data-testid="queue-place">
                      {placeText(place)}
                      {place.waitsFor && (
                        <>
                          , waits for <a href={runPath(place.waitsFor.id)}>{place.waitsFor.attributes.message || place.waitsFor.id}</a>
                        </>
                      )}
                    </span>
                  )}
                </td>
                <td data-label="Created">
                  <RelativeTime iso={run.attributes['created-at']} now={now} />
                </td>
              </tr>
            );
          })}
        </ListTable>
      )}
    </section>
  );
}
