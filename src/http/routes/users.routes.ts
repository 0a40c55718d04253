import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../caller.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import type { Query } from '../querystring.js';
import { sendDocument } from '../reply.js';
import { resourceBody } from '../schemas.js';
import type { Services } from '../../services.js';

const CreateUserBody = resourceBody('users', Type.Object({ username: Type.String({ maxLength: 1000 }), email: Type.String({ maxLength: 1000 }) }));

export async function usersRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const users = services.usersService;

  app.post<{ Body: { data: { attributes: { username: string; email: string } } } }>(
    '/admin/users',
    { schema: { body: CreateUserBody, tags: ['users'], summary: 'Create a user (site admin)' } },
    async (request, reply) => sendDocument(reply, 201, { data: await users.create(callerOf(request), request.body.data.attributes) }),
  );

  app.get<{ Querystring: Query }>('/admin/users', { schema: { tags: ['users'] } }, async (request, reply) => {
    const page = parsePage(request.query);
    return sendDocument(reply, 200, listDocument(request, services.config.baseUrl, page, await users.list(callerOf(request), page)));
  });

  app.get('/account/details', { schema: { tags: ['users'] } }, async (request, reply) =>
    sendDocument(reply, 200, { data: await users.accountDetails(callerOf(request)) }),
  );
}
