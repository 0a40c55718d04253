import { Type } from '@sinclair/typebox';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument } from '../reply.js';
import { JsonApiQuery, resourceBody } from '../schemas.js';
import { userResource } from '../serializers/users.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { UserRow } from '../../identity/users.repository.js';
import type { Services } from '../../services.js';
import { Errors } from '../../core/errors.js';
import type { Query } from '../querystring.js';

const AccountUpdateBody = resourceBody(
  'users',
  Type.Object({ username: Type.Optional(Type.String({ maxLength: 1000 })), email: Type.Optional(Type.String({ maxLength: 1000 })) }),
  { attributesRequired: false },
);

function booleanFilter(query: Query, name: string): boolean | undefined {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw Errors.invalidBooleanFilter(name);
}

const CreateUserBody = resourceBody('users', Type.Object({ username: Type.String({ maxLength: 1000 }), email: Type.String({ maxLength: 1000 }) }));

/** Site admins see every user's email. */
const adminView = (user: UserRow) => userResource(user, { showEmail: true });

export async function usersRoutes(app: TypedApp, services: Services): Promise<void> {
  const users = services.usersService;

  app.post(
    '/admin/users',
    { schema: { body: CreateUserBody, tags: ['users'], summary: 'Create a user (site admin)' } },
    async (request, reply) => sendDocument(reply, 201, { data: adminView(await users.create(callerOf(request), request.body.data.attributes)) }),
  );

  app.get('/admin/users', { schema: { querystring: JsonApiQuery, tags: ['users'] } }, async (request, reply) => {
    const page = parsePage(request.query);
    const options = {
      q: request.query.q || undefined,
      admin: booleanFilter(request.query, 'filter[admin]'),
      suspended: booleanFilter(request.query, 'filter[suspended]'),
    };
    return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, await users.list(callerOf(request), page, options), adminView));
  });

  app.patch(
    '/account/update',
    { schema: { body: AccountUpdateBody, tags: ['users'], summary: 'Change your own username or email (only what is sent; people only)' } },
    async (request, reply) => {
      const user = await users.updateOwnAccount(callerOf(request), request.body.data.attributes ?? {});
      return sendDocument(reply, 200, { data: userResource(user, { showEmail: true, isSiteAdmin: false }) });
    },
  );

  app.get('/account/details', { schema: { tags: ['users'] } }, async (request, reply) => {
    const { user, isSiteAdmin } = await users.accountDetails(callerOf(request));
    return sendDocument(reply, 200, { data: userResource(user, { showEmail: true, isSiteAdmin }) });
  });
}
