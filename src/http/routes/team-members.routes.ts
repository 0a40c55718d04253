import { proofOf } from '../find-and-authorize.js';
import { sendNoContent } from '../reply.js';
import { IdParam, identifierListBody } from '../schemas.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';

/** Team membership by username and by organization membership id. 204 on success. */
export async function teamMembersRoutes(app: TypedApp, services: Services): Promise<void> {
  const members = services.teamMembersService;
  const params = IdParam('team_id');
  const config = { lookup: 'team' as const };
  const byUser = { config, schema: { params, body: identifierListBody('users'), tags: ['team-members'] } };
  const byMembership = { config, schema: { params, body: identifierListBody('organization-memberships'), tags: ['team-members'] } };
  const ids = (body: { data: Array<{ id: string }> }) => body.data.map((item) => item.id);

  app.post('/teams/:team_id/relationships/users', byUser, async (request, reply) => {
    await members.addByUsernames(proofOf(request, 'team'), ids(request.body));
    return sendNoContent(reply);
  });
  app.delete('/teams/:team_id/relationships/users', byUser, async (request, reply) => {
    await members.removeByUsernames(proofOf(request, 'team'), ids(request.body));
    return sendNoContent(reply);
  });
  app.post('/teams/:team_id/relationships/organization-memberships', byMembership, async (request, reply) => {
    await members.addByMembershipIds(proofOf(request, 'team'), ids(request.body));
    return sendNoContent(reply);
  });
  app.delete('/teams/:team_id/relationships/organization-memberships', byMembership, async (request, reply) => {
    await members.removeByMembershipIds(proofOf(request, 'team'), ids(request.body));
    return sendNoContent(reply);
  });
}
