import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { proofOf } from '../find-and-authorize.js';
import { parseInclude } from '../include.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { listParameter } from '../querystring.js';
import { sendDocument, sendNoContent } from '../reply.js';
import { IdParam, JsonApiQuery, resourceBody } from '../schemas.js';
import { membershipResource } from '../serializers/memberships.serializer.js';
import { userResource } from '../serializers/users.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { MembershipView } from '../../organizations/memberships.service.js';
import type { Services } from '../../services.js';

const InviteBody = resourceBody('organization-memberships', Type.Object({ email: Type.String({ maxLength: 1000 }) }), {
  relationships: Type.Object({
    teams: Type.Optional(
      Type.Object({ data: Type.Array(Type.Object({ id: Type.String({ maxLength: 255 }), type: Type.Literal('teams') }), { maxItems: 100 }) }),
    ),
  }),
});
const MembershipParams = IdParam('membership_id');

const membershipOf = (view: MembershipView) => membershipResource(view);

/** Organization memberships: invite, accept, list with filters, show, delete. */
export async function membershipsRoutes(app: TypedApp, services: Services): Promise<void> {
  const memberships = services.membershipsService;

  app.post(
    '/organizations/:organization_name/organization-memberships',
    { config: { lookup: 'organization' }, schema: { params: IdParam('organization_name'), body: InviteBody, tags: ['organization-memberships'] } },
    async (request, reply) => {
      const teamIds = request.body.data.relationships?.teams?.data.map((team) => team.id) ?? [];
      const data = await memberships.invite(proofOf(request, 'organization'), request.body.data.attributes.email, teamIds);
      // HCP answers an invitation with its user included (go-tfe compares the created membership with a read
      // that includes the user, field by field).
      const included = data.user ? [userResource(data.user, { showEmail: true })] : [];
      return sendDocument(reply, 201, { data: membershipOf(data), ...(included.length > 0 ? { included } : {}) });
    },
  );

  app.get(
    '/organizations/:organization_name/organization-memberships',
    { config: { includes: ['user', 'teams'] as const, lookup: 'organization' }, schema: { params: IdParam('organization_name'), querystring: JsonApiQuery, tags: ['organization-memberships'] } },
    async (request, reply) => {
      const query = request.query;
      const include = parseInclude(query, ['user', 'teams'] as const);
      const page = parsePage(query);
      const result = await memberships.list(proofOf(request, 'organization'), {
        q: query.q || undefined,
        status: query['filter[status]'] || undefined,
        emails: query['filter[email]'] !== undefined ? listParameter(query['filter[email]']) : undefined,
        page,
      });
      const included = include.has('user') ? result.users.map((user) => userResource(user, { showEmail: true })) : [];
      return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, result, membershipOf, included));
    },
  );

  app.get(
    '/organization-memberships/:membership_id',
    { config: { includes: ['user'] as const, lookup: 'membership' }, schema: { params: MembershipParams, querystring: JsonApiQuery, tags: ['organization-memberships'] } },
    async (request, reply) => {
      // The `tfe` provider reads the username of tfe_organization_membership from the included user.
      const include = parseInclude(request.query, ['user'] as const);
      const view = await memberships.show(proofOf(request, 'membership'));
      const included = include.has('user') && view.user ? [userResource(view.user, { showEmail: true })] : [];
      return sendDocument(reply, 200, { data: membershipOf(view), ...(included.length > 0 ? { included } : {}) });
    },
  );

  app.get(
    '/organization-memberships/:membership_id/invitation',
    {
      config: { lookup: 'invitation' },
      schema: {
        params: MembershipParams,
        tags: ['organization-memberships'],
        summary:
          "Teamstage's: the invited person's own invitation (404 to anyone else), with the user who invited them included (username only), " +
          'so an invitation can name its organization and inviter before it is accepted',
      },
    },
    async (request, reply) => {
      const view = await memberships.invitationView(proofOf(request, 'invitation'));
      const included = view.inviter ? [userResource(view.inviter, { showEmail: false })] : [];
      return sendDocument(reply, 200, { data: membershipOf(view), included });
    },
  );

  app.post(
    '/organization-memberships/:membership_id/actions/accept',
    { config: { lookup: 'invitation' }, schema: { params: MembershipParams, tags: ['organization-memberships'] } },
    async (request, reply) => sendDocument(reply, 200, { data: membershipOf(await memberships.accept(callerOf(request), proofOf(request, 'invitation'))) }),
  );

  app.delete(
    '/organization-memberships/:membership_id',
    { config: { lookup: 'membership' }, schema: { params: MembershipParams, tags: ['organization-memberships'] } },
    async (request, reply) => {
      await memberships.delete(proofOf(request, 'membership'));
      return sendNoContent(reply);
    },
  );
}
