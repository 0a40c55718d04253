import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { ListTable } from '../components/list-table';
import { EmptyState, Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import type { ProjectAttributes } from './project-types';

/** An organization's projects (those the caller may read), each leading to its workspaces and team access. */
export function ProjectsListPage(props: { organization: string }) {
  const { api } = useSession();
  const projects = useApi(
    () => api.get<ListDocument<ProjectAttributes>>(`/organizations/${segment(props.organization)}/projects`, { 'page[size]': '100' }),
    [props.organization],
  );
  return (
    <>
      <PageTitle>{`Projects of ${props.organization}`}</PageTitle>
      <Loader result={projects} what="projects">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>No project you can see in this organization.</EmptyState>
          ) : (
            <ListTable caption={`Projects of ${props.organization}`} columns={['Name', 'Workspaces', 'Teams']}>
              {document.data.map((project) => (
                <tr key={project.id}>
                  <td data-label="Name">
                    <a href={href(paths.project(props.organization, project.id))}>{project.attributes.name}</a>
                  </td>
                  <td data-label="Workspaces">{project.attributes['workspace-count']}</td>
                  <td data-label="Teams">{project.attributes['team-count']}</td>
                </tr>
              ))}
            </ListTable>
          )
        }
      </Loader>
    </>
  );
}
