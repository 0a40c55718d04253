import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { listParameter } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, resourceBody } from '../schemas.js';
import { projectResource } from '../serializers/projects.serializer.js';
import { teamProjectResource } from '../serializers/team-projects.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

/** Values are checked by the project's own rules (projects/project.ts), which answer HCP's sentences. */
const Value = Type.Optional(Type.Unknown());
const projectAttributes = Type.Object({
  name: Value, description: Value, 'auto-destroy-activity-duration': Value, 'default-execution-mode': Value, 'default-agent-pool-id': Value,
  'setting-overwrites': Type.Optional(Type.Union([Type.Null(), Type.Object({ 'default-execution-mode': Value, 'default-agent-pool': Value })])),
});
const CreateProjectBody = resourceBody('projects', projectAttributes);
const UpdateProjectBody = resourceBody('projects', projectAttributes, { attributesRequired: false });
const ProjectParams = IdParam('project_id');

const grantAttributes = Type.Object({ access: Value, 'project-access': Value, 'workspace-access': Value });
const relationship = (type: string) => Type.Optional(Type.Object({ data: Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal(type) }) }));
const CreateAccessBody = resourceBody('team-projects', grantAttributes, {
  relationships: Type.Object({ team: relationship('teams'), project: relationship('projects') }),
});
const UpdateAccessBody = resourceBody('team-projects', grantAttributes, { attributesRequired: false });
const AccessParams = IdParam('team_project_access_id');

/** HCP's projects and project team access (issue 36). */
export async function projectsRoutes(app: TypedApp, services: Services): Promise<void> {
  const { projectsService, teamProjectsService, config } = services;
  app.get(
    '/organizations/:organization_name/projects',
    { config: { lookup: 'organization' }, schema: { params: IdParam('organization_name'), querystring: JsonApiQuery, tags: ['projects'], summary: "List an organization's projects (filter[names], q)" } },
    async (request, reply) => {
      const names = listParameter(request.query['filter[names]']);
      const result = await projectsService.list(proofOf(request, 'organization'), parsePage(request.query), {
        names: names.length > 0 ? names : undefined, query: request.query.q || undefined,
      });
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, projectResource));
    },
  );
  app.post(
    '/organizations/:organization_name/projects',
    { config: { lookup: 'organization' }, schema: { params: IdParam('organization_name'), body: CreateProjectBody, tags: ['projects'], summary: 'Create a project' } },
    async (request, reply) => sendDocument(reply, 201, { data: projectResource(await projectsService.create(proofOf(request, 'organization'), request.body.data.attributes)) }),
  );
  app.get(
    '/projects/:project_id',
    { config: { lookup: 'project' }, schema: { params: ProjectParams, querystring: JsonApiQuery, tags: ['projects'], summary: 'Show a project' } },
    async (request, reply) => sendDocument(reply, 200, { data: projectResource(await projectsService.show(proofOf(request, 'project'))) }),
  );
  app.patch(
    '/projects/:project_id',
    { config: { lookup: 'project' }, schema: { params: ProjectParams, body: UpdateProjectBody, tags: ['projects'], summary: 'Update a project' } },
    async (request, reply) =>
      sendDocument(reply, 200, { data: projectResource(await projectsService.update(proofOf(request, 'project'), request.body.data.attributes ?? {})) }),
  );
  app.delete(
    '/projects/:project_id',
    { config: { lookup: 'project' }, schema: { params: ProjectParams, tags: ['projects'], summary: 'Delete a project (refused while it holds workspaces, and for the default project)' } },
    async (request, reply) => {
      await projectsService.delete(proofOf(request, 'project'));
      return sendNoContent(reply);
    },
  );

  app.get(
    '/team-projects',
    { schema: { querystring: JsonApiQuery, tags: ['team-projects'], summary: "List team access to a project (filter[project][id]) or of a team (filter[team][id])" } },
    async (request, reply) => {
      const query = request.query;
      const result = await teamProjectsService.list(
        callerOf(request),
        { projectId: query['filter[project][id]'] || undefined, teamId: query['filter[team][id]'] || undefined },
        parsePage(query),
      );
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, teamProjectResource));
    },
  );
  app.post(
    '/team-projects',
    { schema: { body: CreateAccessBody, tags: ['team-projects'], summary: 'Give a team access to a project' } },
    async (request, reply) => {
      const { attributes, relationships } = request.body.data;
      const row = await teamProjectsService.create(callerOf(request), attributes, relationships?.team?.data.id, relationships?.project?.data.id);
      return sendDocument(reply, 201, { data: teamProjectResource(row) });
    },
  );
  app.get(
    '/team-projects/:team_project_access_id',
    { config: { lookup: 'team-project-access' }, schema: { params: AccessParams, tags: ['team-projects'], summary: 'Show a team project access' } },
    async (request, reply) => sendDocument(reply, 200, { data: teamProjectResource(proofOf(request, 'team-project-access').row) }),
  );
  app.patch(
    '/team-projects/:team_project_access_id',
    { config: { lookup: 'team-project-access' }, schema: { params: AccessParams, body: UpdateAccessBody, tags: ['team-projects'], summary: 'Change a team project access' } },
    async (request, reply) => {
      const row = await teamProjectsService.update(proofOf(request, 'team-project-access'), request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: teamProjectResource(row) });
    },
  );
  app.delete(
    '/team-projects/:team_project_access_id',
    { config: { lookup: 'team-project-access' }, schema: { params: AccessParams, tags: ['team-projects'], summary: 'Remove a team project access' } },
    async (request, reply) => {
      await teamProjectsService.delete(proofOf(request, 'team-project-access'));
      return sendNoContent(reply);
    },
  );
}
