import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { sendNoContent } from '../reply.js';
import { IdParam, identifierListBody } from '../schemas.js';
import type { Services } from '../../services.js';

type Params = { team_id: string };
type Body = { data: Array<{ id: string }> };

/** CONTRACT 3: team membership by username and by organization membership id. 204 on success. */
export async function teamMembersRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const members = services.teamMembersService;
  const params = IdParam('team_id');
  const byUser = { schema: { params, body: identifierListBody('users'), tags: ['team-members'] } };
  const byMembership = { schema: { params, body: identifierListBody('organization-memberships'), tags: ['team-members'] } };
  const ids = (body: Body) => body.data.map((item) => item.id);

  app.post<{ Params: Params; Body: Body }>('/teams/:team_id/relationships/users', byUser, async (request, reply) => {
    await members.addByUsernames(callerOf(request), request.params.team_id, ids(request.body));
    return sendNoContent(reply);
  });
  app.delete<{ Params: Params; Body: Body }>('/teams/:team_id/relationships/users', byUser, async (request, reply) => {
    await members.removeByUsernames(callerOf(request), request.params.team_id, ids(request.body));
    return sendNoContent(reply);
  });
  app.post<{ Params: Params; Body: Body }>('/teams/:team_id/relationships/organization-memberships', byMembership, async (request, reply) => {
    await members.addByMembershipIds(callerOf(request), request.params.team_id, ids(request.body));
    return sendNoContent(reply);
  });
  app.delete<{ Params: Params; Body: Body }>('/teams/:team_id/relationships/organization-memberships', byMembership, async (request, reply) => {
    await members.removeByMembershipIds(callerOf(request), request.params.team_id, ids(request.body));
    return sendNoContent(reply);
  });
}
