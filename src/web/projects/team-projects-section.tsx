import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ListTable } from '../components/list-table';
import { ActionOutcome, SubmitButton } from '../components/form-parts';
import { EmptyState, Loader } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';
import { relatedId } from '../workspaces/workspace-types';
import { LEVEL_MEANING, FIXED_PROJECT_ACCESS_LEVELS, type ProjectAccessLevel, type ProjectAttributes, type TeamProjectAttributes } from './project-types';
import { isProjectAccessLevel } from '../../shared/project-access-levels.js';

/**
 * The team's access to projects (HCP's project team access): listed with the project; changed or removed where
 * the caller manages the project's team access (`can-manage-teams`), and given on such a project. The project's
 * workspaces inherit it (docs/access.md).
 */
export function TeamProjectsSection(props: { teamId: string; organization: string }) {
  const { api } = useSession();
  const { teamId, organization } = props;
  const grants = useApi(() => api.get<ListDocument<TeamProjectAttributes>>('/team-projects', { 'filter[team][id]': teamId }), [teamId]);
  const projects = useApi(
    () => api.get<ListDocument<ProjectAttributes>>(`/organizations/${segment(organization)}/projects`, { 'page[size]': '100' }),
    [organization],
  );
  const [projectId, setProjectId] = useState('');
  const [level, setLevel] = useState<ProjectAccessLevel>('read');
  const add = useAction();
  const change = useAction();
  const project = (id: string) => projects.data?.data.find((item) => item.id === id);
  const manages = (id: string) => project(id)?.attributes.permissions?.['can-manage-teams'] === true;
  const granted = new Set((grants.data?.data ?? []).map((grant) => relatedId(grant, 'project')));
  const offered = (projects.data?.data ?? []).filter((item) => !granted.has(item.id) && manages(item.id));

  async function submit(event: Event) {
    event.preventDefault();
    const done = await add.run(
      () =>
        api.post('/team-projects', {
          data: {
            type: 'team-projects',
            attributes: { access: level },
            relationships: { team: { data: { type: 'teams', id: teamId } }, project: { data: { type: 'projects', id: projectId } } },
          },
        }),
      'Project access given.',
    );
    if (done) {
      setProjectId('');
      grants.reload();
    }
  }

  async function setAccess(id: string, access: string) {
    if (await change.run(() => api.patch(`/team-projects/${segment(id)}`, { data: { type: 'team-projects', attributes: { access } } }), 'Project access changed.')) grants.reload();
  }

  async function remove(id: string) {
    if (await change.run(() => api.delete(`/team-projects/${segment(id)}`), 'Project access removed.')) grants.reload();
  }

  return (
    <section aria-labelledby="team-projects-heading">
      <h2 id="team-projects-heading">Project access</h2>
      <Loader result={grants} what="project access">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>This team has no access to any project you can see.</EmptyState>
          ) : (
            <ListTable caption="Projects this team has access to" columns={['Project', 'Access']} actions>
              {document.data.map((grant) => {
                const id = relatedId(grant, 'project') ?? '';
                const name = project(id)?.attributes.name ?? id;
                return (
                  <tr key={grant.id}>
                    <td data-label="Project">
                      <a href={href(paths.project(organization, id))}>{name}</a>
                    </td>
                    <td data-label="Access">
                      {manages(id) ? (
                        <select aria-label={`Access to ${name}`} value={grant.attributes.access} disabled={change.busy} onChange={(event) => setAccess(grant.id, (event.target as HTMLSelectElement).value)}>
                          {grant.attributes.access === 'custom' && <option value="custom">custom</option>}
                          {FIXED_PROJECT_ACCESS_LEVELS.map((option) => <option key={option} value={option}>{option}</option>)}
                        </select>
                      ) : (
                        grant.attributes.access
                      )}
                    </td>
                    <td data-label="Actions">
                      {manages(id) && (
                        <button type="button" class="secondary" disabled={change.busy} onClick={() => remove(grant.id)}>
                          Remove access to {name}
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </ListTable>
          )
        }
      </Loader>
      <ActionOutcome action={change} what="project access" />
      {offered.length > 0 && (
        <form onSubmit={submit}>
          <label for="team-project-choice">Project</label>
          <select id="team-project-choice" value={projectId} onChange={(event) => setProjectId((event.target as HTMLSelectElement).value)}>
            <option value="">Choose a project</option>
            {offered.map((item) => <option key={item.id} value={item.id}>{item.attributes.name}</option>)}
          </select>
          <label for="team-project-level">Access</label>
          <select id="team-project-level" value={level} onChange={(event) => { const value = (event.target as HTMLSelectElement).value; if (isProjectAccessLevel(value)) setLevel(value); }}>
            {FIXED_PROJECT_ACCESS_LEVELS.map((option) => <option key={option} value={option}>{`${option}: ${LEVEL_MEANING[option]}`}</option>)}
          </select>
          <SubmitButton busy={add.busy} busyLabel="Giving access…" incomplete={projectId === ''}>Give project access</SubmitButton>
          <ActionOutcome action={add} what="project access" />
        </form>
      )}
    </section>
  );
}
