import { Type } from '@sinclair/typebox';
import { proofOf } from '../find-and-authorize.js';
import { parseInclude } from '../include.js';
import { resourceDocument } from '../jsonapi.js';
import { listDocument } from '../list-document.js';
import { parsePage } from '../pagination.js';
import { sendDocument } from '../reply.js';
import { IdParam, JsonApiQuery, resourceBody } from '../schemas.js';
import { actorResource, commentResource, runEventResource } from '../serializers/run-record.serializer.js';
import type { TypedApp } from '../typed-app.js';
import type { Services } from '../../services.js';
import { RUN_EVENT_INCLUDES } from '../../runs/run-record.service.js';

const CommentBody = resourceBody('comments', Type.Object({ body: Type.Optional(Type.String({ maxLength: 20_000 })) }));

/** The record of a run (HCP's run events and comments): every transition and decision, who made it, and their comments. */
export async function runRecordRoutes(app: TypedApp, services: Services): Promise<void> {
  const { runRecordService: record, config } = services;

  app.get(
    '/runs/:run_id/run-events',
    { config: { includes: RUN_EVENT_INCLUDES, lookup: 'run' }, schema: { params: IdParam('run_id'), querystring: JsonApiQuery, tags: ['runs'], summary: "A run's events, oldest first (include: actor, comment)" } },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_EVENT_INCLUDES);
      const result = await record.events(proofOf(request, 'run'), parsePage(request.query), include);
      const included = [...result.actors.map(actorResource), ...result.comments.map(commentResource)];
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, result, runEventResource, included));
    },
  );

  app.get(
    '/run-events/:run_event_id',
    { config: { includes: RUN_EVENT_INCLUDES, lookup: 'run-event' }, schema: { params: IdParam('run_event_id'), querystring: JsonApiQuery, tags: ['runs'], summary: 'Show a run event (include: actor, comment)' } },
    async (request, reply) => {
      const include = parseInclude(request.query, RUN_EVENT_INCLUDES);
      const result = await record.event(proofOf(request, 'run-event'), include);
      const included = [...result.actors.map(actorResource), ...result.comments.map(commentResource)];
      return sendDocument(reply, 200, resourceDocument({ data: runEventResource(result.events[0]!), included }));
    },
  );

  app.get(
    '/runs/:run_id/comments',
    { config: { lookup: 'run' }, schema: { params: IdParam('run_id'), querystring: JsonApiQuery, tags: ['runs'], summary: "A run's comments, oldest first" } },
    async (request, reply) => {
      const page = await record.comments(proofOf(request, 'run'), parsePage(request.query));
      return sendDocument(reply, 200, listDocument(request, config.baseUrl, page, commentResource));
    },
  );

  app.post(
    '/runs/:run_id/comments',
    { config: { lookup: 'run' }, schema: { params: IdParam('run_id'), body: CommentBody, tags: ['runs'], summary: 'Comment on a run (whoever may act on it)' } },
    async (request, reply) => {
      const comment = await record.addComment(proofOf(request, 'run'), request.body.data.attributes.body);
      return sendDocument(reply, 201, { data: commentResource(comment) });
    },
  );

  app.get(
    '/comments/:comment_id',
    { config: { lookup: 'comment' }, schema: { params: IdParam('comment_id'), tags: ['runs'], summary: 'Show a comment' } },
    async (request, reply) => sendDocument(reply, 200, { data: commentResource(proofOf(request, 'comment')) }),
  );
}
