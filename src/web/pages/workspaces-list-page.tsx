import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { EmptyState, Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import type { Document } from '../api/jsonapi-types';
import type { OrganizationAttributes } from '../session/session-context';
import { WorkspaceForm } from '../workspaces/workspace-form';
import type { WorkspaceAttributes } from '../workspaces/workspace-types';
import { ListTable } from '../components/list-table';

/** An organization's workspaces (those the caller may read), each leading to its run tasks and runs. */
export function WorkspacesListPage(props: { organization: string }) {
  const { api } = useSession();
  const workspaces = useApi(
    () => api.get<ListDocument<WorkspaceAttributes>>(`/organizations/${segment(props.organization)}/workspaces`, { 'page[size]': '100' }),
    [props.organization],
  );
  const organization = useApi(() => api.get<Document<OrganizationAttributes>>(`/organizations/${segment(props.organization)}`), [props.organization]);
  const canCreate = organization.data?.data.attributes.permissions?.['can-create-workspace'] === true;
  return (
    <>
      <PageTitle>{`Workspaces of ${props.organization}`}</PageTitle>
      <Loader result={workspaces} what="workspaces">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>
              No workspace you can see in this organization.{canCreate ? ' Create one below.' : ' Someone who manages workspaces can create one.'}
            </EmptyState>
          ) : (
            <>
              <ListTable caption={`Workspaces of ${props.organization}`} columns={['Name', 'Description', 'Apply']}>
                  {document.data.map((workspace) => (
                    <tr key={workspace.id}>
                      <td data-label="Name">
                        <a href={href(paths.workspace(props.organization, workspace.attributes.name))}>{workspace.attributes.name}</a>
                      </td>
                      <td data-label="Description">{workspace.attributes.description || <span class="muted">—</span>}</td>
                      <td data-label="Apply">{workspace.attributes['auto-apply'] ? 'Automatic' : 'After confirmation'}</td>
                    </tr>
                  ))}
              </ListTable>
              {(document.meta?.pagination?.['total-count'] ?? 0) > document.data.length && (
                <p class="muted">
                  Showing {document.data.length} of {document.meta?.pagination?.['total-count']}.
                </p>
              )}
            </>
          )
        }
      </Loader>
      {canCreate && (
        <section aria-labelledby="create-workspace-heading">
          <h2 id="create-workspace-heading">Create a workspace</h2>
          <WorkspaceForm organization={props.organization} />
        </section>
      )}
    </>
  );
}
