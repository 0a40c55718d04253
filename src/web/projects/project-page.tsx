import { segment } from '../api/api-client';
import type { Document, ListDocument } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { ListTable } from '../components/list-table';
import { EmptyState, ErrorNotice, Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import type { WorkspaceAttributes } from '../workspaces/workspace-types';
import { relatedId } from '../workspaces/workspace-types';
import { LEVEL_MEANING, type ProjectAttributes, type TeamProjectAttributes } from './project-types';

/** One project: its workspaces (those the caller may read) and which teams have what access to it. */
export function ProjectPage(props: { organization: string; projectId: string }) {
  const { api } = useSession();
  const { organization, projectId } = props;
  const project = useApi(() => api.get<Document<ProjectAttributes>>(`/projects/${segment(projectId)}`), [projectId]);
  const workspaces = useApi(
    () => api.get<ListDocument<WorkspaceAttributes>>(`/organizations/${segment(organization)}/workspaces`, { 'filter[project][id]': projectId, 'page[size]': '100' }),
    [organization, projectId],
  );
  const access = useApi(() => api.get<ListDocument<TeamProjectAttributes>>('/team-projects', { 'filter[project][id]': projectId }), [projectId]);
  const teams = useApi(() => api.get<ListDocument<{ name: string }>>(`/organizations/${segment(organization)}/teams`, { 'page[size]': '100' }), [organization]);
  if (project.state === 'loading') return <p role="status" class="muted">Loading the project…</p>;
  if (project.state === 'error') {
    return (
      <>
        <PageTitle>Project</PageTitle>
        <ErrorNotice error={project.error} what="project" />
      </>
    );
  }
  const data = project.data.data;
  const teamName = (id: string) => teams.data?.data.find((team) => team.id === id)?.attributes.name ?? id;
  return (
    <>
      <p class="muted">
        <a href={href(paths.projects(organization))}>Projects of {organization}</a>
      </p>
      <PageTitle>{`Project ${data.attributes.name}`}</PageTitle>
      {data.attributes.description && <p>{data.attributes.description}</p>}
      <h2>Workspaces</h2>
      <Loader result={workspaces} what="workspaces">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>No workspace you can see in this project.</EmptyState>
          ) : (
            <ListTable caption={`Workspaces of project ${data.attributes.name}`} columns={['Name', 'Description']}>
              {document.data.map((workspace) => (
                <tr key={workspace.id}>
                  <td data-label="Name">
                    <a href={href(paths.workspace(organization, workspace.attributes.name))}>{workspace.attributes.name}</a>
                  </td>
                  <td data-label="Description">{workspace.attributes.description || <span class="muted">—</span>}</td>
                </tr>
              ))}
            </ListTable>
          )
        }
      </Loader>
      <h2>Team access</h2>
      <Loader result={access} what="team access">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>No team you can see has access to this project; the organization's owners and managers do.</EmptyState>
          ) : (
            <ListTable caption={`Team access to project ${data.attributes.name}`} columns={['Team', 'Access']}>
              {document.data.map((grant) => {
                const teamId = relatedId(grant, 'team') ?? '';
                const level = grant.attributes.access;
                return (
                  <tr key={grant.id}>
                    <td data-label="Team">
                      <a href={href(paths.team(organization, teamId))}>{teamName(teamId)}</a>
                    </td>
                    <td data-label="Access">
                      {level}
                      {level !== 'custom' && <span class="muted"> — {LEVEL_MEANING[level]}</span>}
                    </td>
                  </tr>
                );
              })}
            </ListTable>
          )
        }
      </Loader>
    </>
  );
}
